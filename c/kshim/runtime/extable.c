// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's exception fixups, in user space (hotpath kernel shim).
 *
 * Kernel code that may fault by design says so in its exception table
 * (asm/asm.h writes the entries into hp_kshim_extable). When a load
 * faults, the kernel looks the faulting instruction up there and mends
 * the fault by the entry's type; this file does the same from a SIGSEGV
 * or SIGBUS, through the engine's fixup hook (hp_trap_add_fixup(),
 * c/bench/guard.c), so that a fault at an entry resumes exactly where the
 * kernel would resume it, and any other fault is still a crash or a read
 * outside the buffer:
 *
 * - EX_TYPE_DEFAULT, EX_TYPE_UACCESS: continue at the entry's fixup
 *   address (ex_handler_default);
 * - EX_TYPE_ZEROPAD: load_unaligned_zeropad()'s 8-byte load ran into the
 *   page after the data. The kernel (ex_handler_zeropad) decodes the
 *   `mov m64, r64`, checks that the fault is at the next aligned word,
 *   loads the aligned word that holds the first bytes, shifts it down by
 *   the address's offset (the bytes past the page read as zeros), writes
 *   it to the destination register and continues after the load. So does
 *   this, for the same instruction forms (REX.W 8B /r, any ModRM/SIB
 *   addressing but RIP-relative).
 *
 * Other types are not modelled: such a fault stays fatal, reported as a
 * crash by the gate.
 */
#define _GNU_SOURCE
#include <hotpath/guard.h>

#include <signal.h>
#include <stdint.h>
#include <ucontext.h>

#include "../include/asm/asm.h"

struct extable_entry {
	int32_t insn, fixup, type;
};

/* The linker's bounds of this shared object's own table. */
extern const struct extable_entry __start_hp_kshim_extable[]
	__attribute__((weak, visibility("hidden")));
extern const struct extable_entry __stop_hp_kshim_extable[]
	__attribute__((weak, visibility("hidden")));

static uintptr_t target(const int32_t *field)
{
	return (uintptr_t)field + (intptr_t)*field;
}

static int kshim_fixup(int sig, siginfo_t *info, void *uctx)
{
	greg_t *regs = ((ucontext_t *)uctx)->uc_mcontext.gregs;
	uintptr_t ip = (uintptr_t)regs[REG_RIP];

	(void)sig;
	for (const struct extable_entry *e = __start_hp_kshim_extable;
	     e && e < __stop_hp_kshim_extable; e++) {
		if (target(&e->insn) != ip)
			continue;
		switch (e->type) {
		case EX_TYPE_DEFAULT:
		case EX_TYPE_UACCESS:
			regs[REG_RIP] = (greg_t)target(&e->fixup);
			return 1;
		case EX_TYPE_ZEROPAD:
			return hp_kernel_zeropad(uctx, ip, target(&e->fixup),
				       (uintptr_t)info->si_addr);
		default:
			return 0;
		}
	}
	return 0;
}

__attribute__((constructor)) static void kshim_extable_register(void)
{
	if (&__start_hp_kshim_extable[0] != &__stop_hp_kshim_extable[0])
		hp_trap_add_fixup(kshim_fixup);
}
