/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Exception-table entries, as the kernel writes them (from, to, type,
 * each a 32-bit offset or value) but in a section of the shim's own,
 * hp_kshim_extable, that c/kshim/runtime/extable.c reads when a load
 * faults: the kernel's fixup, done by the same rule (hotpath kernel shim).
 * The types keep the kernel's numbers.
 */
#ifndef HP_KSHIM_ASM_ASM_H
#define HP_KSHIM_ASM_ASM_H

#define EX_TYPE_NONE 0
#define EX_TYPE_DEFAULT 1
#define EX_TYPE_UACCESS 3
#define EX_TYPE_ZEROPAD 20

#ifdef __ASSEMBLY__
#define _ASM_EXTABLE_TYPE(from, to, type) \
	.pushsection "hp_kshim_extable", "a"; \
	.balign 4; \
	.long (from) - .; \
	.long (to) - .; \
	.long type; \
	.popsection
#define _ASM_PTR .quad
#else
#define _ASM_EXTABLE_TYPE(from, to, type) \
	" .pushsection \"hp_kshim_extable\",\"a\"\n" \
	" .balign 4\n" \
	" .long (" #from ") - .\n" \
	" .long (" #to ") - .\n" \
	" .long " __stringify(type) " \n" \
	" .popsection\n"
#define _ASM_PTR " .quad "
#endif

#define _ASM_EXTABLE(from, to) _ASM_EXTABLE_TYPE(from, to, EX_TYPE_DEFAULT)
#define _ASM_EXTABLE_UA(from, to) _ASM_EXTABLE_TYPE(from, to, EX_TYPE_UACCESS)

#endif
