#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: every check of the project, in order, one line per step and
# per test as it goes, and one last line "N passed, N failed, N skipped".
#
#   1. deps           Debian packages (tools/scripts/deps.sh)
#   2. build-stock    nvsvm.ko, nvsvm_vgpu.ko with W=1 and sparse (C=2)
#                     against KDIR, no compiler or sparse warning; then the
#                     TEST-ONLY tests/kmod module against them
#                     (build-test-kmod), for the stock VM's tests/pascal,
#                     and tests/hmm's nvsvm_dmirror.ko (build-hmm-kmod),
#                     for tests/guest-hmm.sh's hmm-tests
#                     (every lane's module builds are W=1 C=2 the same way)
#   3. checkpatch     checkpatch.pl --strict (tools/scripts/style.sh)
#      layers         the core's files include only headers of the floors
#                     below their own (tools/scripts/layers.sh, with its
#                     self-test: an upward include is caught)
#      host-tests     the model's parts built for the host, tested there
#                     (make -C tests/host check: fp-test, the soft float
#                     against the host's SSE)
#   4. dkms           DKMS build + install in a throwaway tree, the installed
#                     tree kept for 7.
#   5. tests-build    tests/*.c into build/tests/, on 6.1's
#                     kselftest_harness.h (a lane on another series
#                     builds its own: build/tests-6.12, build/tests-7.3,
#                     from 6.1's clhpp and GPU program headers)
#      opencl-build   the OpenCL ICD (make -C tools cl), which every test
#                     VM gets with clinfo (run.sh --opencl): tests/opencl
#                     and tests/guest-opencl.sh run in every lane
#      cts-build      the Khronos OpenCL CTS binaries from
#                     ../shared/third_party (tools/scripts/build-cts.sh,
#                     cached; started in the background with the debug
#                     kernels), which the stock, 6.12 and 7.3 debug VMs
#                     get (run.sh --cts) for tests/guest-cts.sh; without
#                     ../shared/third_party it skips with that reason
#      piglit         piglit's OpenCL tests (tests/guest-piglit.sh), given
#                     to the stock, 6.12 and debug-7.3 VMs (run.sh --piglit)
#                     when Debian's piglit is installed, a third of them
#                     each (--piglit-part 1/3, 2/3 and 3/3: half of them
#                     took 198 s on the stock kernel under TCG, 305 s on
#                     the 7.3 debug one, 2026-12-05), judged against
#                     tests/piglit/pocl-reference.txt
#      first-run      the first run of make check and make demo on a bare
#                     machine, rehearsed (tools/scripts/first-run.sh)
#   6. stock VM       the tests in QEMU on the stock kernel
#   7. dkms VM        the stock kernel with only what DKMS installed
#                     (updates/dkms): modprobe by name, load cycles, GET_INFO
#                     (tools/scripts/dkms-guest.sh)
#   8. stock-6.12     bookworm-backports' 6.12 (Debian 13's kernel too), as
#                     make deps unpacked it: modules against its headers,
#                     the tests in QEMU on its vmlinuz
#      dkms-6.12      as 7, on 6.12 (DKMS against the unpacked tree)
#   9. debug-kernel   build or reuse the cached debug kernel, our modules
#                     against it, and the tests in QEMU on it
#  10. debug-7.3      as 9, from trixie-backports' linux-source-7.3
#                     (tools/kconfig/debug-7.3.config)
#  11. nouveau        the nvsvm-patched nouveau.ko (tools/nouveau/build.sh:
#                     checkpatch on the patch, applied without fuzz, built
#                     against the stock headers, cached in /var/cache/nvsvm)
#                     and the stock drm modules it needs; then a VM on the
#                     stock kernel runs tests/guest-nouveau.sh alone (it
#                     skips in the other lanes). A first run compiles
#                     nouveau's 690 files at the lowest priority beside
#                     the 7.3 debug lane, the last and longest, whose VM
#                     leaves CPU idle: in front of the stock VM, as it was
#                     until 2026-12-06, it took 515 s of a cold run's 65 min.
#
# usage: check.sh [--only stock|6.12|debug|7.3|dkms|setup]
#   --only: that VM run and its builds; setup: deps, the kernel build
#   directory and the first module build only (tools/scripts/first-run.sh)
# Environment: KDIR (default as in the Makefile), NVSVM_VM_TIMEOUT_STOCK,
# NVSVM_VM_TIMEOUT_DEBUG (seconds, default 900 and 1500).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top"
scripts=$top/tools/scripts

only=
if [[ ${1:-} == --only ]]; then
	only=$2
fi

out=$top/build/check
mkdir -p "$out"
passed=0 failed=0 skipped=0
start_all=$SECONDS

result() {
	case $1 in
	"not ok "*) failed=$((failed + 1)) ;;
	ok*"# SKIP"*) skipped=$((skipped + 1)) ;;
	*) passed=$((passed + 1)) ;;
	esac
	echo "$1"
}

# step NAME COMMAND...: run a host-side step, its output in build/check/NAME.log.
step() {
	local name=$1 t0=$SECONDS status=0
	shift
	echo "# $name: $*"
	"$@" >"$out/$name.log" 2>&1 || status=$?
	if ((status == 0)); then
		result "ok host/$name ($((SECONDS - t0))s)"
	else
		tail -n 40 "$out/$name.log" | sed 's/^/#   /'
		result "not ok host/$name ($((SECONDS - t0))s, log: build/check/$name.log)"
	fi
	return $status
}

# vm NAME ...: one VM run; its results count as ours.
vm() {
	local name=$1 status=0 p f s
	shift
	rm -f "$out/$name.counts"
	"$top/tools/vm/run.sh" --name "$name" --workdir "$out/vm-$name" \
		--counts "$out/$name.counts" "$@" || status=$?
	if [[ -s $out/$name.counts ]]; then
		read -r p f s <"$out/$name.counts"
		passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	else
		result "not ok $name/vm # the VM runner stopped early (status $status)"
	fi
	# tests/guest-hmm.sh's figures: the kernel's hmm-tests on nvsvm and
	# on test_hmm, and the seconds they took.
	grep -ahE '^# \[guest-hmm\] # hmm-tests' "$out/vm-$name/console.log" 2>/dev/null |
		tr -d '\r' | sed "s/^# \[guest-hmm\] /# $name: /" || true
	# tests/guest-piglit.sh's counts and its ratio to pocl's passes.
	grep -ahE '^# \[guest-piglit\] # piglit' "$out/vm-$name/console.log" 2>/dev/null |
		tr -d '\r' | sed "s/^# \[guest-piglit\] /# $name: /" || true
}

not_run() {
	result "not ok $1 # not run: $2"
}

# hmm_kmod NAME KDIR SERIES: the TEST-ONLY tests/hmm/nvsvm_dmirror.ko (the
# dmirror front end tests/guest-hmm.sh runs the kernel's hmm-tests on),
# against KDIR with the test_hmm_uapi.h of linux-source-SERIES, into
# build/NAME-hmm.
hmm_kmod() {
	local ksrc
	ksrc=$("$scripts/linux-source.sh" "$3") || return 1
	"$top/tests/hmm/build-kmod.sh" "$2" "$ksrc" "build/$1-hmm" C=2
}

# The patch passes checkpatch --strict but for three reasoned exceptions:
# FUNCTION_ARGUMENTS (nouveau's own ABI16_IOCTL_ARGS prototype macro, as on
# the neighbouring lines), FILE_PATH_CHANGES (MAINTAINERS, for two new
# files of an out-of-tree hook) and MISSING_SIGN_OFF (no author to sign).
nouveau_patch_style() {
	local src
	src=$("$scripts/linux-source.sh")
	(cd /tmp && "$src/scripts/checkpatch.pl" --strict --no-tree --color=never \
		--ignore FUNCTION_ARGUMENTS,FILE_PATH_CHANGES,MISSING_SIGN_OFF - \
		<"$top/tools/nouveau/nouveau-nvsvm.patch") | tee "$out/nouveau-checkpatch.log"
	grep -q '^total: 0 errors, 0 warnings, 0 checks' "$out/nouveau-checkpatch.log"
}

# The patched nouveau.ko (cached) and the stock modules it needs, flat in
# build/check/nouveau-modules, for the nouveau VM (step 11).
# (step runs it in an || list, where set -e does not apply: hence the returns.)
nouveau_modules() {
	local dir=$out/nouveau-modules ko
	nouveau_patch_style || return 1
	ko=$(KERNELDIR=$KDIR "$top/tools/nouveau/build.sh" --nvsvm build/stock | tail -n 1) || return 1
	rm -rf "$dir"
	"$top/tools/nouveau/deps.sh" --kver "$kver" copy "$dir" || return 1
	cp "$ko" "$dir/nouveau.ko" || return 1
	echo "nouveau.ko: $ko, depends: $(modinfo -F depends "$dir/nouveau.ko")"
	modinfo -F depends "$dir/nouveau.ko" | tr , '\n' | grep -qx nvsvm
}

# Nothing below can run without the packages, and the kernel build
# directory exists only once they are in: look it up after deps.
if ! step deps "$scripts/deps.sh"; then
	echo "# make check: installing the Debian packages failed (build/check/deps.log); run 'make deps' as root, then make check again"
	echo "$passed passed, $failed failed, $skipped skipped"
	exit 1
fi
if [[ -z ${KDIR:-} ]] && ! KDIR=$("$scripts/kdir.sh"); then
	echo "# make check: no kernel headers after make deps; install linux-headers-amd64 or set KDIR"
	echo "$passed passed, $((failed + 1)) failed, $skipped skipped"
	exit 1
fi
kver=$("$scripts/kernelrelease.sh" "$KDIR" 2>/dev/null || true)
echo "# stock kernel: ${kver:-none} (KDIR=$KDIR)"

# The two debug kernels are the longest builds of a first run and need
# nothing but deps: build them in the background at the lowest priority
# while the steps below run (the VMs leave CPU idle between tests). Each
# debug lane's own build step then waits on that kernel's cache lock and
# reuses it; if the background build failed, the step builds and reports.
prebuild="" prebuild_nouveau=""
if [[ -z $only ]]; then
	(nice -n 19 "$scripts/build-debug-kernel.sh" &&
		nice -n 19 "$scripts/build-debug-kernel.sh" --source 7.3) \
		>"$out/prebuild-kernels.log" 2>&1 &
	prebuild=$!
fi
# The CTS too (cts-build below waits on its cache lock and reuses it).
prebuild_cts=""
if [[ -z $only || $only == stock || $only == 6.12 || $only == 7.3 ]]; then
	nice -n 19 "$scripts/build-cts.sh" >"$out/prebuild-cts.log" 2>&1 &
	prebuild_cts=$!
fi

stock_ok=0 dkms_ok=0
nouveau_mods=()
# tests/kmod/nvsvm_pascal_test.ko for tests/pascal (not in the package).
stock_test_mods=()
if [[ -z $only || $only == stock || $only == setup ]]; then
	step build-stock "$scripts/build-modules.sh" "$KDIR" build/stock C=2 && stock_ok=1
fi
if ((stock_ok)) && [[ $only != setup ]] &&
	step build-test-kmod "$scripts/build-test-kmod.sh" "$KDIR" build/stock build/stock-kmod; then
	stock_test_mods=(--module build/stock-kmod/nvsvm_pascal_test.ko)
fi
if ((stock_ok)) && [[ $only != setup ]] && step build-hmm-kmod hmm_kmod stock "$KDIR" 6.1; then
	stock_test_mods+=(--module build/stock-hmm/nvsvm_dmirror.ko)
fi
if [[ $only == setup ]]; then
	echo "$passed passed, $failed failed, $skipped skipped"
	((failed == 0))
	exit
fi
if [[ -z $only ]]; then
	step checkpatch "$scripts/style.sh" || true
	step layers "$scripts/layers.sh" --self-test || true
	step host-tests make -C "$top/tests/host" check || true
fi
if [[ -z $only || $only == dkms ]]; then
	step dkms "$scripts/dkms-check.sh" --keep "$out/dkms-install" "$kver" && dkms_ok=1
fi
# tests_build SERIES OUT: the test programs, built with the
# kselftest_harness.h of that kernel series' source tree.
tests_build() {
	local ksrc
	ksrc=$("$scripts/linux-source.sh" "$1") || return 1
	# What includes no kselftest_harness.h is the same for every series:
	# another series starts from 6.1's (tests/opencl/clhpp.cpp, 21 s of
	# CPU, and the GPU programs' headers), which make finds up to date.
	if [[ $2 != build/tests && -x build/tests/clhpp ]]; then
		mkdir -p "$2/gpu"
		cp -p build/tests/clhpp "$2/" &&
			cp -p build/tests/gpu/*.h "$2/gpu/" || return 1
	fi
	make -k -j"$(nproc)" -C tests OUT="$top/$2" KSRC="$ksrc"
}
step tests-build tests_build 6.1 build/tests || true
opencl=()
if step opencl-build make -C tools cl; then
	opencl=(--opencl build/tools/cl)
fi
# cts_build: build-cts.sh's directory into cts; its status 3 (no
# ../shared/third_party) is a skip with its reason, not a failure.
cts=()
cts_build() {
	local status=0
	"$scripts/build-cts.sh" >"$out/cts-build.log" 2>&1 || status=$?
	case $status in
	0) cts=(--cts "$(tail -n 1 "$out/cts-build.log")")
	   result "ok host/cts-build" ;;
	3) result "ok host/cts-build # SKIP $(tail -n 1 "$out/cts-build.log")" ;;
	*) tail -n 40 "$out/cts-build.log" | sed 's/^/#   /'
	   result "not ok host/cts-build (log: build/check/cts-build.log)" ;;
	esac
}
if [[ -z $only || $only == stock || $only == 6.12 || $only == 7.3 ]] && ((${#opencl[@]})); then
	echo "# cts-build: $scripts/build-cts.sh"
	cts_build
fi
# The CTS run's share of a VM's time bound (tests/guest-cts.sh).
cts_time=0
((${#cts[@]} == 0)) || cts_time=600
# piglit's OpenCL tests (tests/guest-piglit.sh) need the ICD; the stock,
# 6.12 and 7.3 debug lanes get a third of them each (the debug kernel is
# the slowest under TCG: its share is no larger), with 600 s more for
# their VM (the guest script's budget is 480 s).
piglit=()
piglit_s=0
piglit_dir=/usr/lib/x86_64-linux-gnu/piglit
if ((${#opencl[@]})) && [[ -x $piglit_dir/bin/cl-program-tester ]]; then
	piglit=(--piglit "$piglit_dir")
	piglit_s=600
fi
if [[ -z $only ]]; then
	# The README's commands on a bare machine (issue 15): a failing
	# install, make check's set-up and make demo, in a namespace where
	# nothing is installed yet. Not beside a VM: make demo boots one, and
	# two TCG guests on two cores took longer than one after the other
	# (measured: 292 s together against 80 + 93 s).
	step first-run "$scripts/first-run.sh" || true
fi

if [[ -z $only || $only == stock ]]; then
	if ((stock_ok)) && [[ -f /boot/vmlinuz-$kver ]]; then
		# The stock kernel's fuse.ko, for tests/blocking (loaded by
		# tests/run.sh; the debug kernels have FUSE built in).
		kernel_mods=()
		m=/lib/modules/$kver/kernel/fs/fuse/fuse.ko
		[[ ! -f $m ]] || kernel_mods=(--module "$m")
		# zram and zsmalloc, the swap device of tests/prefetch's swap
		# cases (the debug kernels have no swap: they skip there).
		for m in drivers/block/zram/zram mm/zsmalloc; do
			m=/lib/modules/$kver/kernel/$m.ko
			[[ ! -f $m ]] || kernel_mods+=(--module "$m")
		done
		vm stock --kernel "/boot/vmlinuz-$kver" --kver "$kver" \
			--module build/stock/nvsvm.ko --module build/stock/nvsvm_vgpu.ko \
			"${stock_test_mods[@]}" "${kernel_mods[@]}" \
			"${opencl[@]}" "${cts[@]}" ${piglit[@]+"${piglit[@]}" --piglit-part 1/3} \
			--tests build/tests \
			--timeout "$((${NVSVM_VM_TIMEOUT_STOCK:-900} + cts_time + piglit_s))"
	else
		not_run stock/vm "no module build or no /boot/vmlinuz-$kver"
	fi
fi

if [[ -z $only || $only == dkms ]]; then
	# Only the DKMS-installed tree: no --module, so modprobe can find
	# nothing but updates/dkms. tests/info does GET_INFO there.
	if ((dkms_ok)) && [[ -f /boot/vmlinuz-$kver && -x build/tests/info ]]; then
		rm -rf "$out/dkms-tests"
		mkdir -p "$out/dkms-tests"
		cp build/tests/info "$out/dkms-tests/"
		vm dkms --kernel "/boot/vmlinuz-$kver" --kver "$kver" \
			--kmods "$out/dkms-install/$kver" --tests "$out/dkms-tests" \
			--script "$scripts/dkms-guest.sh" \
			--timeout "${NVSVM_VM_TIMEOUT_STOCK:-900}"
	else
		not_run dkms/vm "no DKMS install, no /boot/vmlinuz-$kver or no build/tests/info"
	fi
fi

if [[ -z $only || $only == 6.12 ]]; then
	# bookworm-backports' 6.12 (also Debian 13's kernel), unpacked by
	# make deps (tools/scripts/debian-kernels.sh): build, tests.
	k612=$("$scripts/kdir.sh" 6.12 2>/dev/null || true)
	ok612=0
	if [[ -n $k612 ]] && step build-6.12 "$scripts/build-modules.sh" "$k612" build/stock-6.12 C=2; then
		ok612=1
	fi
	if ((ok612)); then
		kv612=$("$scripts/kernelrelease.sh" "$k612")
		test_mods_612=()
		if step build-6.12-test-kmod "$scripts/build-test-kmod.sh" "$k612" build/stock-6.12 build/stock-6.12-kmod; then
			test_mods_612=(--module build/stock-6.12-kmod/nvsvm_pascal_test.ko)
		fi
		if step build-6.12-hmm-kmod hmm_kmod stock-6.12 "$k612" 6.12; then
			test_mods_612+=(--module build/stock-6.12-hmm/nvsvm_dmirror.ko)
		fi
		# 6.12's zram and the lz4 modules it needs (zsmalloc is built
		# in), for tests/prefetch's swap cases, decompressed for
		# busybox's insmod.
		kmods612=$("$scripts/debian-kernels.sh" --get 6.12-modules)/kernel
		mkdir -p build/stock-6.12-zram
		for m in drivers/block/zram/zram lib/lz4/lz4_compress lib/lz4/lz4hc_compress; do
			z=build/stock-6.12-zram/${m##*/}.ko
			if [[ -f $kmods612/$m.ko.xz ]] && xz -dc "$kmods612/$m.ko.xz" >"$z"; then
				test_mods_612+=(--module "$z")
			fi
		done
		# The tests on 6.12's own kselftest_harness.h.
		tests612=build/tests
		if step tests-build-6.12 tests_build 6.12 build/tests-6.12; then
			tests612=build/tests-6.12
		fi
		vm stock-6.12 --kernel "$("$scripts/debian-kernels.sh" --get 6.12-vmlinuz)" --kver "$kv612" \
			--module build/stock-6.12/nvsvm.ko --module build/stock-6.12/nvsvm_vgpu.ko \
			"${test_mods_612[@]}" "${opencl[@]}" "${cts[@]}" \
			${piglit[@]+"${piglit[@]}" --piglit-part 2/3} \
			--tests "$tests612" --timeout "$((${NVSVM_VM_TIMEOUT_STOCK:-900} + cts_time + piglit_s))"
	else
		not_run stock-6.12/vm "no 6.12 headers (make deps) or module build"
	fi
fi

if [[ -z $only || $only == dkms || $only == 6.12 ]]; then
	# DKMS as a 6.12 user runs it: install against the unpacked 6.12 tree
	# (in a private mount namespace, tools/scripts/dkms-check.sh
	# --modules), then modprobe by name and load cycles on its vmlinuz.
	k612=$("$scripts/kdir.sh" 6.12 2>/dev/null || true)
	if [[ -n $k612 ]]; then
		kv612=$("$scripts/kernelrelease.sh" "$k612")
		m612=$("$scripts/debian-kernels.sh" --get 6.12-modules)
	fi
	if [[ -n $k612 && -x build/tests/info ]] &&
		step dkms-6.12 "$scripts/dkms-check.sh" --keep "$out/dkms-install-6.12" \
			--kernelsourcedir "$k612" --modules "$m612" "$kv612"; then
		rm -rf "$out/dkms-tests"
		mkdir -p "$out/dkms-tests"
		cp build/tests/info "$out/dkms-tests/"
		vm dkms-6.12 --kernel "$("$scripts/debian-kernels.sh" --get 6.12-vmlinuz)" --kver "$kv612" \
			--kmods "$out/dkms-install-6.12/$kv612" --tests "$out/dkms-tests" \
			--script "$scripts/dkms-guest.sh" \
			--timeout "${NVSVM_VM_TIMEOUT_STOCK:-900}"
	else
		not_run dkms-6.12/vm "no 6.12 tree (make deps), no DKMS install or no build/tests/info"
	fi
fi

# debug_lane NAME [SERIES]: build or reuse the cached debug kernel (from
# linux-source-SERIES, default 6.1), our modules against it, and the tests
# in QEMU on it.
debug_lane() {
	local name=$1 series=${2:-} dk="" dkver tests=build/tests
	local -a test_mods=() lane_cts=() lane_piglit=()
	local extra=0

	if step "$name-kernel" "$scripts/build-debug-kernel.sh" ${series:+--source "$series"}; then
		dk=$(tail -n 1 "$out/$name-kernel.log")
	fi
	# The kernels built, nouveau next at the lowest priority, beside
	# this lane's VM (step 11 waits on its cache lock and reuses it).
	if [[ $series == 7.3 && -z $only ]] && ((stock_ok)); then
		KERNELDIR=$KDIR nice -n 19 "$top/tools/nouveau/build.sh" --nvsvm build/stock \
			>"$out/prebuild-nouveau.log" 2>&1 &
		prebuild_nouveau=$!
	fi
	if [[ -n $dk ]] && step "build-$name" "$scripts/build-modules.sh" "$dk" "build/$name" C=2; then
		dkver=$("$scripts/kernelrelease.sh" "$dk")
		# The lane's own kselftest_harness.h (6.1's is build/tests).
		if [[ -n $series ]] && step "tests-build-$series" tests_build "$series" "build/tests-$series"; then
			tests=build/tests-$series
		fi
		if step "build-$name-test-kmod" "$scripts/build-test-kmod.sh" "$dk" "build/$name" "build/$name-kmod"; then
			test_mods=(--module "build/$name-kmod/nvsvm_pascal_test.ko")
		fi
		if step "build-$name-hmm-kmod" hmm_kmod "$name" "$dk" "${series:-6.1}"; then
			test_mods+=(--module "build/$name-hmm/nvsvm_dmirror.ko")
		fi
		# test_svm and a third of piglit in the 7.3 debug lane (the
		# rest of the CTS and the other thirds in the stock and 6.12
		# lanes: tests/guest-cts.sh).
		if [[ $series == 7.3 ]]; then
			lane_cts=("${cts[@]}")
			((${#piglit[@]})) && lane_piglit=("${piglit[@]}" --piglit-part 3/3)
			extra=$((cts_time + piglit_s))
		fi
		vm "$name" --debug --kernel "$dk/arch/x86/boot/bzImage" --kver "$dkver" \
			--kmods "$dk/modinst/lib/modules/$dkver" \
			--module "build/$name/nvsvm.ko" --module "build/$name/nvsvm_vgpu.ko" \
			"${test_mods[@]}" "${opencl[@]}" "${lane_cts[@]}" "${lane_piglit[@]}" \
			--tests "$tests" --timeout "$((${NVSVM_VM_TIMEOUT_DEBUG:-1500} + extra))"
	else
		not_run "$name/vm" "no debug kernel or module build"
	fi
}

if [[ -z $only || $only == debug ]]; then
	debug_lane debug
fi
if [[ -z $only || $only == 7.3 ]]; then
	debug_lane debug-7.3 7.3
fi

if [[ -z $only || $only == stock ]]; then
	if ((stock_ok)) && [[ -f /boot/vmlinuz-$kver ]]; then
		if step nouveau nouveau_modules; then
			for m in "$out"/nouveau-modules/*.ko; do
				nouveau_mods+=(--module "$m")
			done
			vm nouveau --kernel "/boot/vmlinuz-$kver" --kver "$kver" \
				--module build/stock/nvsvm.ko --module build/stock/nvsvm_vgpu.ko \
				"${nouveau_mods[@]}" --guest nouveau \
				--timeout "${NVSVM_VM_TIMEOUT_STOCK:-900}"
		fi
	else
		not_run nouveau/vm "no module build or no /boot/vmlinuz-$kver"
	fi
fi

[[ -z $prebuild ]] || wait "$prebuild" || true
[[ -z $prebuild_cts ]] || wait "$prebuild_cts" || true
[[ -z $prebuild_nouveau ]] || wait "$prebuild_nouveau" || true
echo "# make check took $((SECONDS - start_all))s"
echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0 && passed > 0))
