#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The test_hmm half of tests/guest-hmm.sh: the kernel's hmm-tests against
# the kernel's own lib/test_hmm.ko (the debug kernels), as a run.sh program
# of its own (its own time bound), before guest-hmm.sh's run on nvsvm.
HMM_PEER=test_hmm
# shellcheck source=tests/guest-hmm.sh
. "${0%/*}/guest-hmm.sh"
