/* SPDX-License-Identifier: GPL-2.0-only */
/* CPUs and the built-in row each must find (c/dispatch/rows.c), for the
 * dispatch tests: test_dispatch.c runs every row, test_dispatch_rows.c
 * parses them. */
#ifndef HOTPATH_TEST_DISPATCH_CPUS_H
#define HOTPATH_TEST_DISPATCH_CPUS_H

static const struct {
	const char *vendor;
	unsigned int family, model;
	const char *row;
} cpus[] = {
	{ "AuthenticAMD", 0x17, 0x01, "zen1" },		/* EPYC 7001 */
	{ "HygonGenuine", 0x18, 0x00, "zen1" },
	{ "AuthenticAMD", 0x19, 0x11, "zen4" },		/* EPYC 9004 */
	{ "AuthenticAMD", 0x19, 0x61, "zen4" },
	{ "AuthenticAMD", 0x19, 0x01, "zen3" },		/* EPYC 7003 */
	{ "AuthenticAMD", 0x19, 0x30, "generic" },	/* no Zen core there */
	{ "AuthenticAMD", 0x1a, 0x02, "zen5" },		/* EPYC 9005 */
	{ "GenuineIntel", 0x06, 0xcf, "emerald-rapids" },
	{ "GenuineIntel", 0x06, 0x8f, "generic" },	/* Sapphire Rapids: not measured */
};

#endif
