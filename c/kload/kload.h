/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's own objects, loaded as the kernel loads a module: the
 * relocatable objects Kbuild built from a tree (-mcmodel=kernel, no PIC,
 * `call __fentry__` at every entry, `jmp __x86_return_thunk` for every
 * ret, alternatives) are placed in the low 2 GiB where their 32-bit
 * sign-extended relocations resolve, relocated, their undefined symbols
 * resolved against hotpath's kernel runtime (loaded the same way) and
 * patched as the kernel patches itself on this CPU. docs/kernel-source.md.
 *
 * A load is described by a spec file that Python writes (kernelsrc/kload.py):
 *
 *   object PATH          a relocatable object, in load order
 *   word W LEAF SUB REG  the tree's capability word W is CPUID LEAF.SUB's
 *                        register REG (eax, ebx, ecx, edx)
 *   set N                feature bit N (word * 32 + bit) on: the tree's
 *                        synthetic features this CPU and kernel would set
 *   alt SIZE             the size of the tree's struct alt_instr (12: a
 *                        u16 cpuid, ALTINSTR_FLAG_INV in bit 15; 14: a u32
 *                        ft_flags, ALT_FLAG_NOT in bit 16)
 *   rethunk NAME         what `jmp __x86_return_thunk` becomes: ret (the
 *                        kernel without RETHUNK) or a runtime thunk's symbol
 *   retpoline MODE       indirect branches: off (direct) or generic (thunks)
 *   init SYMBOL          run once after loading (the module's init), before
 *                        jump labels are patched
 *   stub SYMBOL          an undefined symbol the timed code never reaches
 *                        (a function of the tree file that the glue wraps
 *                        but does not time): resolved to a trap (ud2), so
 *                        that a call is a crash the gate names
 */
#ifndef HOTPATH_KLOAD_H
#define HOTPATH_KLOAD_H

#include <stddef.h>

/* The address of @symbol in the image @spec describes, loading it on the
 * first call (one image per spec path). NULL with the reason in @err. */
void *hp_kload_symbol(const char *spec, const char *symbol, char *err, size_t errlen);

/* A loaded image's patch counts, as JSON members ("fentry_nops": 3, ...),
 * and where its text lies: for `hotpath-bench kload` and the tests. */
const char *hp_kload_summary(const char *spec);
/* The undefined symbols no object defines, after a refused load of @spec
 * (as a JSON array of strings), or "[]". */
const char *hp_kload_missing(const char *spec);
void *hp_kload_bounds(const char *spec, size_t *text_size);
/* `hotpath-bench kload SPEC [SYMBOL...] [--dump FILE]` (command.c). */
int hp_kload_command(int argc, char **argv);

#endif /* HOTPATH_KLOAD_H */
