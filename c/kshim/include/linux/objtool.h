/* SPDX-License-Identifier: GPL-2.0-only */
/* hotpath kernel shim: objtool's annotations mean nothing to the code. */
#ifndef HP_KSHIM_LINUX_OBJTOOL_H
#define HP_KSHIM_LINUX_OBJTOOL_H
#define ANNOTATE_NOENDBR
#define ANNOTATE_INTRA_FUNCTION_CALL
#endif
