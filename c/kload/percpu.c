// SPDX-License-Identifier: GPL-2.0-only
/*
 * The per-CPU block: the kernel reaches a CPU's copy of a per-CPU variable
 * as %gs:offset, the offset being the variable's address in the per-CPU
 * section (linked at 0 on x86-64). Here one block serves every image:
 * its first 64 bytes are the kernel's fixed_percpu_data (the stack
 * protector's canary at %gs:40, -mstack-protector-guard-offset=40 in
 * arch/x86/Makefile), every other .data..percpu section gets the next
 * free offset, and the thread's GS base points at the block (glibc on
 * x86-64 uses FS for its thread pointer; GS is free in user space).
 */
#define _GNU_SOURCE
#include "kload_internal.h"

#include <asm/prctl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PERCPU_BLOCK (256u << 10)
#define FIXED_AREA 64u
#define CANARY_OFFSET 40u

static uint8_t *block;
static size_t used = FIXED_AREA;

static int percpu_init(void)
{
	uint64_t canary = 0;

	if (block)
		return 0;
	block = mmap(NULL, PERCPU_BLOCK, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (block == MAP_FAILED) {
		block = NULL;
		return -1;
	}
	if (getrandom(&canary, sizeof(canary), 0) != sizeof(canary))
		canary = 0x5aa5c3c3f00d1234ull;
	canary &= ~0xffull;	/* the kernel's canary starts with a NUL byte too */
	memcpy(block + CANARY_OFFSET, &canary, sizeof(canary));
	return (int)syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)block);
}

/* The offset of a new per-CPU section of @size with its initial @data
 * (NULL: zeros); the fixed area for .data..percpu..first. -1 when full. */
intptr_t kl_percpu_alloc(const char *name, size_t size, size_t align, const void *data)
{
	size_t at;

	if (percpu_init())
		return -1;
	if (!strcmp(name, ".data..percpu..first"))
		return size <= FIXED_AREA ? 0 : -1;
	at = align > 1 ? (used + align - 1) & ~(align - 1) : used;
	if (at + size > PERCPU_BLOCK)
		return -1;
	if (data)
		memcpy(block + at, data, size);
	used = at + size;
	return (intptr_t)at;
}
