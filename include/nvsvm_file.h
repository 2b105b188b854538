/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file front end (src/file.c): the teardown of every open file at
 * unregister (its file operations are nvsvm_fops, in nvsvm_core.h).
 */
#ifndef _NVSVM_FILE_H
#define _NVSVM_FILE_H

struct nvsvm_device;

void nvsvm_file_unplug_all(struct nvsvm_device *ndev);

#endif /* _NVSVM_FILE_H */
