/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the fault and invalidation paths:
 *   trace-cmd record -e nvsvm ...   or   perf record -e 'nvsvm:*' ...
 * They carry device indices, counts, user virtual addresses and GPU ids,
 * never a kernel pointer or a physical address.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM nvsvm

#if !defined(_NVSVM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _NVSVM_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(nvsvm_fault_batch,
	TP_PROTO(int dev, unsigned int faults, unsigned int dups,
		 bool overflow),
	TP_ARGS(dev, faults, dups, overflow),
	TP_STRUCT__entry(
		__field(int, dev)
		__field(unsigned int, faults)
		__field(unsigned int, dups)
		__field(bool, overflow)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->faults = faults;
		__entry->dups = dups;
		__entry->overflow = overflow;
	),
	TP_printk("nvsvm%d faults=%u dups=%u overflow=%d", __entry->dev,
		  __entry->faults, __entry->dups, __entry->overflow)
);

TRACE_EVENT(nvsvm_fault_range,
	TP_PROTO(int dev, u64 start, u64 end, unsigned int faults, u64 mapped,
		 int ret),
	TP_ARGS(dev, start, end, faults, mapped, ret),
	TP_STRUCT__entry(
		__field(int, dev)
		__field(u64, start)
		__field(u64, end)
		__field(unsigned int, faults)
		__field(u64, mapped)
		__field(int, ret)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->start = start;
		__entry->end = end;
		__entry->faults = faults;
		__entry->mapped = mapped;
		__entry->ret = ret;
	),
	TP_printk("nvsvm%d [0x%llx, 0x%llx) faults=%u mapped=%llu ret=%d",
		  __entry->dev, __entry->start, __entry->end, __entry->faults,
		  __entry->mapped, __entry->ret)
);

TRACE_EVENT(nvsvm_fault_cancel,
	TP_PROTO(int dev, u64 addr, unsigned int gpc, unsigned int client,
		 unsigned int access),
	TP_ARGS(dev, addr, gpc, client, access),
	TP_STRUCT__entry(
		__field(int, dev)
		__field(u64, addr)
		__field(unsigned int, gpc)
		__field(unsigned int, client)
		__field(unsigned int, access)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->addr = addr;
		__entry->gpc = gpc;
		__entry->client = client;
		__entry->access = access;
	),
	TP_printk("nvsvm%d addr=0x%llx gpc=%u client=%u access=%u",
		  __entry->dev, __entry->addr, __entry->gpc, __entry->client,
		  __entry->access)
);

TRACE_EVENT(nvsvm_invalidate,
	TP_PROTO(int dev, u32 type),
	TP_ARGS(dev, type),
	TP_STRUCT__entry(
		__field(int, dev)
		__field(u32, type)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->type = type;
	),
	TP_printk("nvsvm%d type=0x%08x", __entry->dev, __entry->type)
);

#endif /* _NVSVM_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
