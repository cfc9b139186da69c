/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Indirect jumps and returns as the kernel patches them on a CPU that
 * needs no retpoline or return thunk (enhanced IBRS, as on the Intel and
 * Zen 4/5 cores hotpath has run on): a plain `jmp *%reg`, and `ret`
 * followed by the int3 that CONFIG_MITIGATION_SLS puts after it. A kernel
 * that chose retpolines or a return thunk for its CPU (see
 * /sys/devices/system/cpu/vulnerabilities/spectre_v2 and retbleed) pays
 * more per indirect jump and return than this shim does
 * (docs/kernel-source.md). hotpath kernel shim.
 */
#ifndef HP_KSHIM_ASM_NOSPEC_BRANCH_H
#define HP_KSHIM_ASM_NOSPEC_BRANCH_H
#ifdef __ASSEMBLY__
.macro JMP_NOSPEC reg:req
	jmp *%\reg
.endm
.macro CALL_NOSPEC reg:req
	call *%\reg
.endm
#define RET ret; int3
#endif
#endif
