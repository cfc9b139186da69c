// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's exception fixups for loaded images: code that may fault by design
 * says so in __ex_table, and a fault at an entry is mended by the entry's
 * type as the kernel mends it (arch/x86/mm/extable.c), through the
 * engine's fixup hook (hp_trap_add_fixup(), c/bench/guard.c):
 *
 * - EX_TYPE_DEFAULT, EX_TYPE_UACCESS: continue at the entry's fixup;
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
 * crash by the gate. The type numbers are the kernel's
 * (asm/extable_fixup_types.h, the same in 6.1 and 6.12).
 */
#define _GNU_SOURCE
#include "kload_internal.h"

#include <hotpath/guard.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#define EX_TYPE_DEFAULT 1
#define EX_TYPE_UACCESS 3
#define EX_TYPE_ZEROPAD 20
#define EX_DATA_TYPE_MASK 0xffu

/* x86 register number (ModRM/SIB with REX) -> glibc's gregs index. */
static const int greg_of[16] = {
	REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
	REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
};

/* ex_handler_zeropad(): 1 when the fault was the load's, mended. */
static int zeropad(void *uctx, uintptr_t ip, uintptr_t next, uintptr_t fault)
{
	greg_t *regs = ((ucontext_t *)uctx)->uc_mcontext.gregs;
	const uint8_t *p = (const uint8_t *)ip;
	unsigned rex = 0, mod, reg, rm;
	uintptr_t addr;

	if ((*p & 0xf0) == 0x40)
		rex = *p++;
	if (!(rex & 8) || *p++ != 0x8b)
		return 0;		/* not a 64-bit mov load */
	mod = *p >> 6;
	reg = ((*p >> 3) & 7) | ((rex & 4) << 1);
	rm = *p++ & 7;
	if (mod == 3 || (mod == 0 && rm == 5))
		return 0;		/* a register or RIP-relative operand */
	if (rm == 4) {
		unsigned sib = *p++, index = ((sib >> 3) & 7) | ((rex & 2) << 2);
		unsigned base = (sib & 7) | ((rex & 1) << 3);

		addr = index == 4 ? 0 : (uintptr_t)regs[greg_of[index]] << (sib >> 6);
		if ((sib & 7) == 5 && mod == 0) {
			int32_t d;

			memcpy(&d, p, 4);
			addr += (intptr_t)d;
			p += 4;
		} else {
			addr += (uintptr_t)regs[greg_of[base]];
		}
	} else {
		addr = (uintptr_t)regs[greg_of[rm | ((rex & 1) << 3)]];
	}
	if (mod == 1) {
		addr += (intptr_t)(int8_t)*p++;
	} else if (mod == 2) {
		int32_t d;

		memcpy(&d, p, 4);
		addr += (intptr_t)d;
		p += 4;
	}
	if ((uintptr_t)p != next)
		return 0;		/* the entry is not this one instruction */
	if (fault != (addr & ~(uintptr_t)7) + 8)
		return 0;		/* not the page after the data */
	regs[greg_of[reg]] = (greg_t)(*(const unsigned long *)(addr & ~(uintptr_t)7) >>
				      ((addr & 7) * 8));
	regs[REG_RIP] = (greg_t)next;
	return 1;
}


static uintptr_t target(const int32_t *field)
{
	return (uintptr_t)field + (intptr_t)*field;
}

struct table {
	const int32_t *start;	/* entries of three s32: insn, fixup, data */
	size_t n;
};

static struct table *tables;
static size_t ntables;

static int kload_fixup(int sig, siginfo_t *info, void *uctx)
{
	greg_t *regs = ((ucontext_t *)uctx)->uc_mcontext.gregs;
	uintptr_t ip = (uintptr_t)regs[REG_RIP];

	(void)sig;
	for (size_t t = 0; t < ntables; t++)
		for (size_t i = 0; i < tables[t].n; i++) {
			const int32_t *e = tables[t].start + 3 * i;

			if (target(&e[0]) != ip)
				continue;
			switch ((uint32_t)e[2] & EX_DATA_TYPE_MASK) {
			case EX_TYPE_DEFAULT:
			case EX_TYPE_UACCESS:
				regs[REG_RIP] = (greg_t)target(&e[1]);
				return 1;
			case EX_TYPE_ZEROPAD:
				return zeropad(uctx, ip, target(&e[1]), (uintptr_t)info->si_addr);
			default:
				return 0;
			}
		}
	return 0;
}

static void add_table(struct kl_image *img, uintptr_t addr, size_t size, void *arg)
{
	(void)img, (void)arg;
	tables = realloc(tables, (ntables + 1) * sizeof(*tables));
	tables[ntables++] = (struct table){ (const int32_t *)addr, size / 12 };
}

void kl_register_extables(struct kl_image *img)
{
	size_t before = ntables;

	kl_each_section(img, "__ex_table", add_table, NULL);
	if (!before && ntables)
		hp_trap_add_fixup(kload_fixup);
}
