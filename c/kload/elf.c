// SPDX-License-Identifier: GPL-2.0-only
/*
 * Relocatable objects placed, resolved and relocated, as the kernel's
 * module loader does (kernel/module/main.c, arch/x86/kernel/module.c):
 *
 * - every SHF_ALLOC section of every object gets an address in one mapping
 *   in the low 2 GiB (MAP_32BIT): code with -mcmodel=kernel carries
 *   R_X86_64_32S, a sign-extended 32-bit absolute address, which resolves
 *   there as it does in the kernel's top 2 GiB; executable sections first,
 *   then the data, each at its own alignment;
 * - per-CPU sections (.data..percpu*) are laid out in one per-CPU block
 *   shared by every image, and their symbols are offsets into it, as in
 *   the kernel where %gs points at the CPU's copy (percpu.c says more);
 * - an undefined symbol is resolved against the other objects of the image
 *   (the tree's, the glue's, hotpath's runtime); one that none defines is
 *   refused before anything runs, named with the object that needs it.
 */
#define _GNU_SOURCE
#include "kload_internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_percpu(const char *name)
{
	return !strncmp(name, ".data..percpu", 13);
}

static int map_object(struct kl_image *img, struct kl_object *o, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	o->path = path;
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return kl_fail(img, "cannot read the kernel object %s", path);
	}
	o->size = (size_t)st.st_size;
	o->file = mmap(NULL, o->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (o->file == MAP_FAILED || o->size < sizeof(Elf64_Ehdr))
		return kl_fail(img, "cannot map the kernel object %s", path);
	o->eh = (const Elf64_Ehdr *)o->file;
	if (memcmp(o->eh->e_ident, ELFMAG, SELFMAG) || o->eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    o->eh->e_type != ET_REL || o->eh->e_machine != EM_X86_64 ||
	    o->eh->e_shoff + (size_t)o->eh->e_shnum * sizeof(Elf64_Shdr) > o->size)
		return kl_fail(img, "%s is not an x86-64 relocatable object", path);
	o->sh = (const Elf64_Shdr *)(o->file + o->eh->e_shoff);
	o->shstr = (const char *)o->file + o->sh[o->eh->e_shstrndx].sh_offset;
	for (unsigned i = 0; i < o->eh->e_shnum; i++)
		if (o->sh[i].sh_type == SHT_SYMTAB) {
			o->sym = (const Elf64_Sym *)(o->file + o->sh[i].sh_offset);
			o->nsym = o->sh[i].sh_size / sizeof(Elf64_Sym);
			o->str = (const char *)o->file + o->sh[o->sh[i].sh_link].sh_offset;
		}
	if (!o->sym)
		return kl_fail(img, "%s has no symbol table", path);
	o->addr = calloc(o->eh->e_shnum, sizeof(*o->addr));
	return 0;
}

static size_t align_up(size_t v, size_t a)
{
	return a > 1 ? (v + a - 1) & ~(a - 1) : v;
}

static int layout(struct kl_image *img)
{
	size_t text = 0, data = 0;
	long page = sysconf(_SC_PAGESIZE);

	for (size_t k = 0; k < img->nobj; k++) {
		struct kl_object *o = &img->obj[k];

		for (unsigned i = 0; i < o->eh->e_shnum; i++) {
			const Elf64_Shdr *s = &o->sh[i];
			size_t *at = s->sh_flags & SHF_EXECINSTR ? &text : &data;

			if (!(s->sh_flags & SHF_ALLOC))
				continue;
			if (is_percpu(o->shstr + s->sh_name)) {
				intptr_t at = kl_percpu_alloc(
					o->shstr + s->sh_name, s->sh_size, s->sh_addralign,
					s->sh_type == SHT_NOBITS ? NULL : o->file + s->sh_offset);

				if (at < 0)
					return kl_fail(img, "%s: no room for %s in the per-CPU block",
						       o->path, o->shstr + s->sh_name);
				o->addr[i] = (uintptr_t)at;
				continue;
			}
			*at = align_up(*at, s->sh_addralign);
			o->addr[i] = *at;
			*at += s->sh_size;
		}
	}
	img->stub_at = align_up(text, 16);
	text = img->stub_at + 16 * img->spec.nstubs;
	img->text_size = align_up(text, (size_t)page);
	img->size = img->text_size + align_up(data ? data : 1, (size_t)page);
	img->base = mmap(NULL, img->size, PROT_READ | PROT_WRITE | PROT_EXEC,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (img->base == MAP_FAILED)
		return kl_fail(img, "cannot map %zu bytes in the low 2 GiB", img->size);
	img->stub_at += (uintptr_t)img->base;
	for (size_t i = 0; i < 8 * img->spec.nstubs; i++)
		memcpy((uint8_t *)img->stub_at + 2 * i, "\x0f\x0b", 2);	/* ud2 */
	for (size_t k = 0; k < img->nobj; k++) {
		struct kl_object *o = &img->obj[k];

		for (unsigned i = 0; i < o->eh->e_shnum; i++) {
			const Elf64_Shdr *s = &o->sh[i];

			if (!(s->sh_flags & SHF_ALLOC) || is_percpu(o->shstr + s->sh_name))
				continue;
			o->addr[i] += (uintptr_t)img->base +
				      (s->sh_flags & SHF_EXECINSTR ? 0 : img->text_size);
			if (s->sh_type != SHT_NOBITS)
				memcpy((void *)o->addr[i], o->file + s->sh_offset, s->sh_size);
		}
	}
	return 0;
}

static int defined(const Elf64_Sym *s)
{
	return s->st_shndx != SHN_UNDEF && s->st_shndx != SHN_COMMON &&
	       (ELF64_ST_BIND(s->st_info) == STB_GLOBAL || ELF64_ST_BIND(s->st_info) == STB_WEAK);
}

static uintptr_t value_in(const struct kl_object *o, const Elf64_Sym *s)
{
	if (s->st_shndx == SHN_ABS)
		return s->st_value;
	if (s->st_shndx >= o->eh->e_shnum)
		return 0;
	return o->addr[s->st_shndx] + s->st_value;
}

/* The image's definition of @name: a strong one before a weak one. */
static const Elf64_Sym *lookup(const struct kl_image *img, const char *name,
			       const struct kl_object **in)
{
	const Elf64_Sym *weak = NULL;

	for (size_t k = 0; k < img->nobj; k++) {
		const struct kl_object *o = &img->obj[k];

		for (size_t i = 1; i < o->nsym; i++) {
			const Elf64_Sym *s = &o->sym[i];

			if (!defined(s) || strcmp(o->str + s->st_name, name))
				continue;
			if (ELF64_ST_BIND(s->st_info) == STB_GLOBAL) {
				*in = o;
				return s;
			}
			if (!weak) {
				weak = s;
				*in = o;
			}
		}
	}
	return weak;
}

uintptr_t kl_global(const struct kl_image *img, const char *name)
{
	const struct kl_object *in = NULL;
	const Elf64_Sym *s = lookup(img, name, &in);

	return s ? value_in(in, s) : 0;
}

/* Which of the spec's stubs @name is, -1 when none. */
static long stub_index(const struct kl_image *img, const char *name)
{
	for (size_t i = 0; i < img->spec.nstubs; i++)
		if (!strcmp(img->spec.stubs[i], name))
			return (long)i;
	return -1;
}

/* Every undefined symbol no object defines, named with its object. */
static int check_undefined(struct kl_image *img)
{
	char missing[2048] = "";
	size_t used = 0, count = 0;

	for (size_t k = 0; k < img->nobj; k++) {
		const struct kl_object *o = &img->obj[k];
		const char *base = strrchr(o->path, '/') ? strrchr(o->path, '/') + 1 : o->path;

		for (size_t i = 1; i < o->nsym; i++) {
			const Elf64_Sym *s = &o->sym[i];
			const struct kl_object *in;
			const char *name = o->str + s->st_name;

			if (s->st_shndx == SHN_COMMON) {
				used += (size_t)snprintf(missing + used, sizeof(missing) - used,
							 "%s%s (common, in %s)", count++ ? ", " : "",
							 name, base);
				continue;
			}
			if (s->st_shndx != SHN_UNDEF || !*name ||
			    ELF64_ST_BIND(s->st_info) == STB_WEAK || lookup(img, name, &in) ||
			    stub_index(img, name) >= 0)
				continue;
			if (img->nmissing < sizeof(img->missing) / sizeof(img->missing[0]))
				img->missing[img->nmissing++] = name;
			if (used < sizeof(missing))
				used += (size_t)snprintf(missing + used, sizeof(missing) - used,
							 "%s%s (needed by %s)", count++ ? ", " : "",
							 name, base);
		}
	}
	if (count)
		return kl_fail(img,
			       "the kernel objects need %zu symbol(s) hotpath's kernel runtime "
			       "does not provide: %s",
			       count, missing);
	return 0;
}

static int symbol_value(struct kl_image *img, const struct kl_object *o, size_t index,
			uint64_t *value)
{
	const Elf64_Sym *s = &o->sym[index];
	const struct kl_object *in = NULL;
	const Elf64_Sym *def;

	if (index >= o->nsym)
		return kl_fail(img, "%s: a relocation names symbol %zu of %zu", o->path, index,
			       o->nsym);
	if (s->st_shndx != SHN_UNDEF) {
		*value = value_in(o, s);
		return 0;
	}
	def = lookup(img, o->str + s->st_name, &in);
	/* an undefined weak one is 0; a stubbed one its trap */
	if (def) {
		*value = value_in(in, def);
	} else {
		long i = stub_index(img, o->str + s->st_name);

		*value = i < 0 ? 0 : img->stub_at + 16 * (uintptr_t)i;
	}
	return 0;
}

static int put(struct kl_image *img, const struct kl_object *o, const char *sec, uint32_t type,
	       uintptr_t where, uint64_t value)
{
	int64_t rel = (int64_t)(value - where);
	int32_t v32;

	switch (type) {
	case R_X86_64_NONE:
		return 0;
	case R_X86_64_64:
		memcpy((void *)where, &value, 8);
		return 0;
	case R_X86_64_PC64:
		memcpy((void *)where, &rel, 8);
		return 0;
	case R_X86_64_PC32:
	case R_X86_64_PLT32:
		if (rel != (int32_t)rel)
			break;
		v32 = (int32_t)rel;
		memcpy((void *)where, &v32, 4);
		return 0;
	case R_X86_64_32:
		if (value > 0xffffffffu)
			break;
		v32 = (int32_t)(uint32_t)value;
		memcpy((void *)where, &v32, 4);
		return 0;
	case R_X86_64_32S:
		if ((int64_t)value != (int32_t)value)
			break;
		v32 = (int32_t)value;
		memcpy((void *)where, &v32, 4);
		return 0;
	default:
		return kl_fail(img, "%s: relocation type %u in %s is not one the loader applies",
			       o->path, type, sec);
	}
	return kl_fail(img, "%s: relocation type %u in %s does not reach its target (0x%llx)",
		       o->path, type, sec, (unsigned long long)value);
}

static void add_site(struct kl_sites *sites, uintptr_t at, uintptr_t key)
{
	sites->at = realloc(sites->at, (sites->n + 1) * sizeof(*sites->at));
	sites->key = realloc(sites->key, (sites->n + 1) * sizeof(*sites->key));
	sites->at[sites->n] = at;
	sites->key[sites->n++] = key;
}

/* A relocated rel32 of a call, jmp or jcc (@where is the rel32) against a
 * symbol the kernel patches branches to: the site is recorded. */
static void note_site(struct kl_image *img, const struct kl_object *o, size_t index,
		      uint32_t type, uintptr_t where, uint64_t offset, const char *section)
{
	const char *name = o->str + o->sym[index].st_name;
	const uint8_t *op = (const uint8_t *)where;
	uintptr_t insn;
	char key[256];

	if ((type != R_X86_64_PLT32 && type != R_X86_64_PC32) ||
	    !strcmp(section, ".altinstr_replacement"))
		return;	/* a replacement's branches are placed with it (patch.c) */
	if (offset < 1)
		return;
	if (op[-1] == 0xe8 || op[-1] == 0xe9)
		insn = where - 1;
	else if (offset >= 2 && op[-2] == 0x0f && (op[-1] & 0xf0) == 0x80)
		insn = where - 2;
	else
		return;
	if (!strcmp(name, "__fentry__") && op[-1] == 0xe8)
		add_site(&img->fentry, insn, 0);
	else if (!strcmp(name, "__x86_return_thunk") && op[-1] == 0xe9)
		add_site(&img->returns, insn, 0);
	else if (!strncmp(name, "__x86_indirect_thunk_", 21))
		add_site(&img->retpolines, insn, 0);
	else if (!strncmp(name, "__SCT__", 7) && (op[-1] == 0xe8 || op[-1] == 0xe9)) {
		snprintf(key, sizeof(key), "__SCK__%s", name + 7);
		add_site(&img->static_calls, insn, kl_global(img, key));
	}
}

static int relocate(struct kl_image *img, struct kl_object *o)
{
	for (unsigned r = 0; r < o->eh->e_shnum; r++) {
		const Elf64_Shdr *rs = &o->sh[r];
		const char *target;
		const Elf64_Rela *rela;
		int keep;

		if (rs->sh_type == SHT_REL)
			return kl_fail(img, "%s: REL relocations (not RELA)", o->path);
		if (rs->sh_type != SHT_RELA || rs->sh_info >= o->eh->e_shnum ||
		    !(o->sh[rs->sh_info].sh_flags & SHF_ALLOC))
			continue;
		target = o->shstr + o->sh[rs->sh_info].sh_name;
		keep = !strcmp(target, ".altinstr_replacement");
		rela = (const Elf64_Rela *)(o->file + rs->sh_offset);
		for (size_t i = 0; i < rs->sh_size / sizeof(*rela); i++) {
			uint64_t s = 0;
			uintptr_t where = o->addr[rs->sh_info] + rela[i].r_offset;
			uint32_t type = (uint32_t)ELF64_R_TYPE(rela[i].r_info);

			if (symbol_value(img, o, ELF64_R_SYM(rela[i].r_info), &s) ||
			    put(img, o, target, type, where, s + (uint64_t)rela[i].r_addend))
				return -1;
			if (o->sh[rs->sh_info].sh_flags & SHF_EXECINSTR)
				note_site(img, o, ELF64_R_SYM(rela[i].r_info), type, where,
					  rela[i].r_offset, target);
			if (keep) {
				img->alt_rels = realloc(img->alt_rels,
							(img->nalt_rels + 1) * sizeof(*img->alt_rels));
				img->alt_rels[img->nalt_rels++] = (struct kl_rel){
					where, type, s + (uint64_t)rela[i].r_addend
				};
			}
		}
	}
	return 0;
}

void kl_each_section(struct kl_image *img, const char *name, kl_section_fn fn, void *arg)
{
	for (size_t k = 0; k < img->nobj; k++) {
		struct kl_object *o = &img->obj[k];

		for (unsigned i = 0; i < o->eh->e_shnum; i++)
			if (o->addr[i] && o->sh[i].sh_size && !strcmp(o->shstr + o->sh[i].sh_name, name))
				fn(img, o->addr[i], o->sh[i].sh_size, arg);
	}
}

int kl_load_objects(struct kl_image *img)
{
	for (size_t k = 0; k < img->spec.nobjects; k++) {
		if (map_object(img, &img->obj[k], img->spec.objects[k]))
			return -1;
		img->nobj++;
	}
	if (check_undefined(img) || layout(img))
		return -1;
	for (size_t k = 0; k < img->nobj; k++)
		if (relocate(img, &img->obj[k]))
			return -1;
	return 0;
}
