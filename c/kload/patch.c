// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's own patching of its text, done to a loaded image in the
 * order the kernel does it at boot and at module load
 * (arch/x86/kernel/alternative.c, ftrace.c, jump_label.c):
 *
 * The branch sites are those elf.c found from the relocations, as objtool
 * finds them for __mcount_loc, .retpoline_sites, .return_sites and
 * .static_call_sites (in a tree built with IBT or LTO objtool writes those
 * only when vmlinux is linked, so a single object does not have them):
 *
 * 1. each `call __fentry__` becomes a 5-byte NOP, as ftrace leaves every
 *    site when nothing traces it;
 * 2. `call/jmp __x86_indirect_thunk_REG` becomes
 *    `call/jmp *%REG` (retpoline off: the kernel without X86_FEATURE_
 *    RETPOLINE, or with eIBRS) or stays on the runtime's retpoline thunk;
 * 3. `jmp __x86_return_thunk` becomes `ret; int3 x4` (no
 *    X86_FEATURE_RETHUNK) or `jmp` to the thunk the mitigation chose
 *    (srso_alias_return_thunk, ...);
 * 4. .altinstructions: where the CPU has the entry's feature (or lacks it,
 *    for ALT_FLAG_NOT) the replacement is copied over the original, its
 *    PC-relative relocations applied again at the new place, and the rest
 *    filled with NOPs; where it does not, the original's trailing 1-byte
 *    NOP padding becomes the kernel's long NOPs;
 * 5. after the object's init ran: __jump_table, each site a jmp or a NOP
 *    as its key is now enabled, like jump_label_init(); each
 *    `call __SCT__name` a direct call to the key's function now (a
 *    NOP where it is NULL; a tail `jmp` a jmp, or a ret), like
 *    static_call_init().
 */
#include "kload_internal.h"

#include <string.h>

#define NOP5 "\x0f\x1f\x44\x00\x00"

struct counts {
	size_t sites, patched, skipped;
};

/* The kernel's add_nop(): the optimal NOPs up to 8 bytes, else a short
 * jmp over int3 padding. */
static void add_nops(uint8_t *at, size_t len)
{
	static const uint8_t nops[9][8] = {
		{ 0 },
		{ 0x90 },
		{ 0x66, 0x90 },
		{ 0x0f, 0x1f, 0x00 },
		{ 0x0f, 0x1f, 0x40, 0x00 },
		{ 0x0f, 0x1f, 0x44, 0x00, 0x00 },
		{ 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
		{ 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 },
		{ 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
	};

	if (len <= 8) {
		memcpy(at, nops[len], len);
		return;
	}
	at[0] = 0xeb;
	at[1] = (uint8_t)(len - 2);
	memset(at + 2, 0xcc, len - 2);
}

static uintptr_t rel32_target(const uint8_t *insn, size_t len)
{
	int32_t d;

	memcpy(&d, insn + len - 4, 4);
	return (uintptr_t)insn + len + (intptr_t)d;
}

static void put_rel32(uint8_t *insn, size_t len, uintptr_t target)
{
	int32_t d = (int32_t)((intptr_t)target - (intptr_t)((uintptr_t)insn + len));

	memcpy(insn + len - 4, &d, 4);
}

static void fentry_nops(struct kl_image *img, struct counts *c)
{
	for (size_t i = 0; i < img->fentry.n; i++) {
		memcpy((uint8_t *)img->fentry.at[i], NOP5, 5);
		c->sites++;
		c->patched++;
	}
}

static const char *const thunk_regs[16] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15",
};

static int thunk_reg(struct kl_image *img, uintptr_t target)
{
	char name[48];

	for (int r = 0; r < 16; r++) {
		snprintf(name, sizeof(name), "__x86_indirect_thunk_%s", thunk_regs[r]);
		if (kl_global(img, name) == target)
			return r;
	}
	return -1;
}

/* `call/jmp *%reg` (and jcc as `jncc 1f; jmp *%reg; 1:`), as the kernel's
 * patch_retpoline() writes it without X86_FEATURE_RETPOLINE. */
static void retpolines(struct kl_image *img, struct counts *c)
{
	for (size_t i = 0; i < img->retpolines.n; i++) {
		uint8_t *site = (uint8_t *)img->retpolines.at[i], out[6];
		size_t len = site[0] == 0x0f ? 6 : 5, n = 0;
		int reg = -1, call = site[0] == 0xe8;

		c->sites++;
		if (site[0] == 0xe8 || site[0] == 0xe9 || (site[0] == 0x0f && (site[1] & 0xf0) == 0x80))
			reg = thunk_reg(img, rel32_target(site, len));
		if (reg < 0 || img->spec.retpoline) {
			c->skipped += reg < 0;
			continue;
		}
		if (len == 6) {	/* jcc: the inverted condition jumps over */
			out[n++] = (uint8_t)(0x70 | ((site[1] & 0x0f) ^ 1));
			out[n++] = (uint8_t)(len - 2);
		}
		if (reg >= 8)
			out[n++] = 0x41;
		out[n++] = 0xff;
		out[n++] = (uint8_t)((call ? 0xd0 : 0xe0) | (reg & 7));
		if (call)
			add_nops(out + n, len - n);
		else
			memset(out + n, 0xcc, len - n);
		memcpy(site, out, len);
		c->patched++;
	}
}

static void returns(struct kl_image *img, struct counts *c)
{
	uintptr_t thunk = kl_global(img, "__x86_return_thunk");
	uintptr_t to = strcmp(img->spec.rethunk, "ret") ? kl_global(img, img->spec.rethunk) : 0;

	for (size_t i = 0; i < img->returns.n; i++) {
		uint8_t *site = (uint8_t *)img->returns.at[i];

		c->sites++;
		if (site[0] != 0xe9 || rel32_target(site, 5) != thunk) {
			c->skipped++;
			continue;
		}
		if (to) {
			put_rel32(site, 5, to);
		} else {
			site[0] = 0xc3;
			memset(site + 1, 0xcc, 4);
		}
		c->patched++;
	}
}

/*
 * ALT_FLAG_DIRECT_CALL (paravirt calls, 6.x): `call *ptr(%rip)` becomes a
 * direct call to what the pointer holds, as the kernel's alt_replace_call()
 * does (a NULL pointer: BUG_func). A pointer among the stubs (a paravirt
 * table the timed code never reaches) makes the call that stub's trap.
 */
static void direct_call(struct kl_image *img, uint8_t *instr, unsigned ilen, struct counts *c)
{
	int32_t disp;
	uintptr_t slot, target;
	intptr_t rel;

	c->sites++;
	if (ilen != 6 || instr[0] != 0xff || instr[1] != 0x15) {
		c->skipped++;
		return;
	}
	memcpy(&disp, instr + 2, 4);
	slot = (uintptr_t)instr + 6 + (intptr_t)disp;
	if (slot >= img->stub_at && slot < img->stub_at + 16 * img->spec.nstubs)
		target = slot;
	else
		memcpy(&target, (const void *)slot, sizeof(target));
	if (!target)
		target = kl_global(img, "BUG_func");
	rel = (intptr_t)target - (intptr_t)((uintptr_t)instr + 5);
	if (!target || rel != (int32_t)rel) {
		c->skipped++;
		return;
	}
	instr[0] = 0xe8;
	put_rel32(instr, 5, target);
	instr[5] = 0x90;
	c->patched++;
}

struct alt_counts {
	struct counts c;
	int bad;
};

static void alternatives(struct kl_image *img, uintptr_t addr, size_t size, void *arg)
{
	struct alt_counts *ac = arg;
	unsigned esize = img->spec.alt_size;

	for (size_t off = 0; off + esize <= size; off += esize) {
		const uint8_t *e = (const uint8_t *)addr + off;
		int32_t io, ro;
		uint32_t ft = 0;
		unsigned feature, flags, ilen = e[esize - 2], rlen = e[esize - 1];
		uint8_t *instr, *repl, buf[256];

		memcpy(&io, e, 4);
		memcpy(&ro, e + 4, 4);
		memcpy(&ft, e + 8, esize == 14 ? 4 : 2);
		if (esize == 14) {	/* u32 ft_flags: the flags in the upper half */
			feature = ft & 0xffff;
			flags = ft >> 16;
		} else {		/* u16 cpuid: ALTINSTR_FLAG_INV in bit 15 */
			feature = ft & 0x7fff;
			flags = ft >> 15 & 1;
		}
		instr = (uint8_t *)((uintptr_t)e + (intptr_t)io);
		repl = (uint8_t *)((uintptr_t)e + 4 + (intptr_t)ro);
		ac->c.sites++;
		if (flags & 2) {	/* ALT_FLAG_DIRECT_CALL */
			direct_call(img, instr, ilen, &ac->c);
			continue;
		}
		if (rlen > ilen || ilen > sizeof(buf)) {
			kl_fail(img, "an alternative of %u bytes for %u", rlen, ilen);
			ac->bad = 1;
			return;
		}
		if (kl_has(img, feature) == !!(flags & 1)) {
			size_t pad = 0;

			while (pad < ilen && instr[ilen - 1 - pad] == 0x90)
				pad++;
			add_nops(instr + ilen - pad, pad);
			ac->c.skipped++;
			continue;
		}
		memcpy(buf, repl, rlen);
		for (size_t r = 0; r < img->nalt_rels; r++) {
			const struct kl_rel *rel = &img->alt_rels[r];
			uintptr_t at = rel->where - (uintptr_t)repl;
			int32_t d;

			if (rel->where < (uintptr_t)repl || at + 4 > rlen ||
			    (rel->type != R_X86_64_PC32 && rel->type != R_X86_64_PLT32))
				continue;
			d = (int32_t)((intptr_t)rel->value - (intptr_t)((uintptr_t)instr + at));
			memcpy(buf + at, &d, 4);
		}
		add_nops(buf + rlen, ilen - rlen);
		memcpy(instr, buf, ilen);
		ac->c.patched++;
	}
}

int kl_patch_text(struct kl_image *img)
{
	struct counts fentry = { 0 }, retp = { 0 }, ret = { 0 };
	struct alt_counts alt = { { 0 }, 0 };
	uintptr_t caps;
	if (strcmp(img->spec.rethunk, "ret") && !kl_global(img, img->spec.rethunk))
		return kl_fail(img, "the return thunk %s is not in hotpath's kernel runtime",
			       img->spec.rethunk);
	kl_compute_caps(img);
	/* A glue that keeps boot_cpu_data of the tree's own type copies this
	 * CPU's capability words from here in its init (c/kload/glue). */
	caps = kl_global(img, "hp_kernel_caps");
	if (caps)
		memcpy((void *)caps, img->caps, sizeof(img->caps));
	fentry_nops(img, &fentry);
	retpolines(img, &retp);
	returns(img, &ret);
	kl_each_section(img, ".altinstructions", alternatives, &alt);
	if (alt.bad)
		return -1;
	snprintf(img->summary, sizeof(img->summary),
		 "\"fentry_nops\": %zu, \"fentry_sites\": %zu, \"returns_patched\": %zu, "
		 "\"return_sites\": %zu, \"retpolines_patched\": %zu, \"retpoline_sites\": %zu, "
		 "\"alternatives_applied\": %zu, \"alternatives\": %zu",
		 fentry.patched, fentry.sites, ret.patched, ret.sites, retp.patched, retp.sites,
		 alt.c.patched, alt.c.sites);
	return 0;
}

static void labels(struct kl_image *img, uintptr_t addr, size_t size, void *arg)
{
	size_t *n = arg;

	(void)img;
	for (size_t off = 0; off + 16 <= size; off += 16) {
		const uint8_t *e = (const uint8_t *)addr + off;
		int32_t code, target;
		int64_t key;
		uint8_t *site;
		const int32_t *enabled;
		int jump, two;

		memcpy(&code, e, 4);
		memcpy(&target, e + 4, 4);
		memcpy(&key, e + 8, 8);
		site = (uint8_t *)((uintptr_t)e + (intptr_t)code);
		enabled = (const int32_t *)((uintptr_t)e + 8 + (intptr_t)(key & ~3ll));
		jump = (*enabled > 0) ^ (int)(key & 1);
		two = site[0] == 0xeb || (site[0] == 0x66 && site[1] == 0x90);
		if (!jump) {
			add_nops(site, two ? 2 : 5);
		} else if (two) {
			site[0] = 0xeb;
			site[1] = (uint8_t)((uintptr_t)e + 4 + (intptr_t)target - (uintptr_t)site - 2);
		} else {
			site[0] = 0xe9;
			put_rel32(site, 5, (uintptr_t)e + 4 + (intptr_t)target);
		}
		++*n;
	}
}

/* static_call_init(): each site a direct call to its key's function
 * now, or a NOP (a tail call: a ret) where it is NULL. */
static void static_calls(struct kl_image *img, size_t *n)
{
	for (size_t i = 0; i < img->static_calls.n; i++) {
		uint8_t *site = (uint8_t *)img->static_calls.at[i];
		void *func = NULL;

		if (!img->static_calls.key[i])
			continue;	/* a trampoline without a key: left calling it */
		memcpy(&func, (const void *)img->static_calls.key[i], sizeof(func));
		if (func) {
			put_rel32(site, 5, (uintptr_t)func);
		} else if (site[0] == 0xe8) {
			add_nops(site, 5);
		} else {
			site[0] = 0xc3;
			memset(site + 1, 0xcc, 4);
		}
		++*n;
	}
}

int kl_patch_labels(struct kl_image *img)
{
	size_t n = 0, calls = 0, used;

	kl_each_section(img, "__jump_table", labels, &n);
	static_calls(img, &calls);
	used = strlen(img->summary);
	snprintf(img->summary + used, sizeof(img->summary) - used,
		 ", \"jump_labels\": %zu, \"static_calls\": %zu", n, calls);
	return 0;
}
