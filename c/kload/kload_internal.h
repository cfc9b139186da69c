/* SPDX-License-Identifier: GPL-2.0-only */
/* The loader's pieces (c/kload): one image per spec, its objects, its patches. */
#ifndef HOTPATH_KLOAD_INTERNAL_H
#define HOTPATH_KLOAD_INTERNAL_H

#include <elf.h>
#include <stdint.h>
#include <stdio.h>

#define KL_MAX_OBJECTS 16
#define KL_NWORDS 32	/* capability words a tree may name (NCAPINTS is 21 or 22) */
#define KL_MAX_SET 64
#define KL_MAX_STUBS 256

struct kl_word {
	int used;
	uint32_t leaf, sub;
	int reg;	/* 0 eax, 1 ebx, 2 ecx, 3 edx */
};

struct kl_spec {
	const char *objects[KL_MAX_OBJECTS];
	size_t nobjects;
	struct kl_word words[KL_NWORDS];
	unsigned set[KL_MAX_SET];
	size_t nset;
	unsigned alt_size;
	char rethunk[64];	/* "ret" or the runtime thunk's symbol */
	int retpoline;		/* 0 off, 1 generic */
	char init[64];
	const char *stubs[KL_MAX_STUBS];	/* symbols that trap when reached */
	size_t nstubs;
};

/* One relocation of .altinstr_replacement, kept to apply again where a
 * replacement is copied to its site (its PC-relative targets move). */
struct kl_rel {
	uintptr_t where;	/* address in the replacement section */
	uint32_t type;
	uint64_t value;		/* S + A */
};

struct kl_object {
	const char *path;
	uint8_t *file;
	size_t size;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	const char *shstr;
	const Elf64_Sym *sym;
	size_t nsym;
	const char *str;
	uintptr_t *addr;	/* per section: where it was placed, 0 if not */
};

struct kl_image {
	char *spec_path;
	struct kl_spec spec;
	struct kl_object obj[KL_MAX_OBJECTS];
	size_t nobj;
	uint8_t *base;		/* the mapping, low 2 GiB */
	uintptr_t stub_at;	/* the stubs' 16-byte traps, at the text's end */
	const char *missing[64];	/* undefined symbols no object defines */
	size_t nmissing;
	size_t text_size, size;	/* text first, then data */
	struct kl_rel *alt_rels;
	size_t nalt_rels;
	/* The branch sites the kernel patches, found as objtool finds them
	 * (a call or jmp whose rel32 is relocated against the symbol): since
	 * objtool runs at vmlinux's link in trees with IBT or LTO, a single
	 * object has no .return_sites, .retpoline_sites, .static_call_sites. */
	struct kl_sites {
		uintptr_t *at;
		uintptr_t *key;	/* static calls: the __SCK__ key */
		size_t n;
	} fentry, returns, retpolines, static_calls;
	uint32_t caps[KL_NWORDS];
	char summary[512];	/* what was patched, JSON members */
	char *err;
	size_t errlen;
	struct kl_image *next;
};

/* elf.c: place, resolve, relocate. 0, or -1 with img->err said. */
int kl_load_objects(struct kl_image *img);
/* An address of a global symbol of the image, 0 when none. */
uintptr_t kl_global(const struct kl_image *img, const char *name);
/* Each section called @name, over every object: its address and size. */
typedef void (*kl_section_fn)(struct kl_image *img, uintptr_t addr, size_t size, void *arg);
void kl_each_section(struct kl_image *img, const char *name, kl_section_fn fn, void *arg);

/* features.c: the tree's capability words for this CPU, from CPUID and the spec. */
void kl_compute_caps(struct kl_image *img);
int kl_has(const struct kl_image *img, unsigned feature);

/* patch.c: the kernel's own patching, in its boot order. */
int kl_patch_text(struct kl_image *img);
int kl_patch_labels(struct kl_image *img);

/* percpu.c: a per-CPU section's offset in the block at GS, -1 when full. */
intptr_t kl_percpu_alloc(const char *name, size_t size, size_t align, const void *data);

/* extable.c: the image's exception tables, for the engine's fault hook. */
void kl_register_extables(struct kl_image *img);

/* spec.c */
int kl_read_spec(const char *path, struct kl_spec *spec, char *err, size_t errlen);

__attribute__((format(printf, 2, 3))) int kl_fail(struct kl_image *img, const char *fmt, ...);

#endif /* HOTPATH_KLOAD_INTERNAL_H */
