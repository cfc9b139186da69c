// SPDX-License-Identifier: GPL-2.0-only
/*
 * hotpath's entry into the SELinux AVC of a kernel tree, built by the
 * tree's Kbuild as an external module's object (kernelsrc/kbuilt.py). The
 * tree's security/selinux/avc.c is included above this file by its
 * absolute path, so avc_hash() and avc_search_node(), both static, are
 * the tree's own, with the tree's struct avc_node and AVC_CACHE_SLOTS.
 *
 * The avc lab (c/avc/registry_avc_lookup.c) builds its cache of the
 * workload's keys with avc_hash() as the bucket function, in nodes laid
 * out as struct avc_node (the runner checks the layout below against its
 * own), and hands the slots' first nodes over with adopt(): the cache
 * then is the kernel's own selinux_avc, and search() is the kernel's
 * avc_search_node() over it. The rest of avc.c (insertion, reclaim,
 * auditing, tracing) is never reached: its undefined symbols are stubs
 * that trap (the spec's stub lines).
 */
#include <linux/stddef.h>
#include <linux/version.h>

/* struct hp_avc_kernel_ops of c/include/hotpath/avc.h, in the kernel's
 * types (this file is built with the tree's headers only): keep the two
 * alike, member for member. */
typedef void *(*hp_avc_search_fn)(u32 ssid, u32 tsid, u16 tclass);

struct hp_avc_kernel_ops {
	u32 slots, node_size, list_offset, tsid_offset, tclass_offset;
	u32 (*hash)(u32 ssid, u32 tsid, u16 tclass);
	void (*adopt)(void *const *heads);
	hp_avc_search_fn search;
	u64 (*loop)(hp_avc_search_fn search, const void *keys, int mode, unsigned int n, u64 seed);
};

/* hotpath's lookup loop, in hotpath's runtime loaded beside this object
 * (c/kload/bursts/bursts.c): the lab times search() through it. */
u64 hp_kburst_avc_loop(hp_avc_search_fn search, const void *keys, int mode, unsigned int n,
		       u64 seed);

static u32 hp_avc_hash(u32 ssid, u32 tsid, u16 tclass)
{
	return avc_hash(ssid, tsid, tclass);
}

static void hp_avc_adopt(void *const *heads)
{
	for (unsigned int i = 0; i < AVC_CACHE_SLOTS; i++)
		selinux_avc.avc_cache.slots[i].first = heads[i];
}

static void *hp_avc_search(u32 ssid, u32 tsid, u16 tclass)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	return avc_search_node(ssid, tsid, tclass);
#else
	return avc_search_node(&selinux_avc, ssid, tsid, tclass);
#endif
}

extern const struct hp_avc_kernel_ops hp_glue_avc_ops;
const struct hp_avc_kernel_ops hp_glue_avc_ops = {
	.slots = AVC_CACHE_SLOTS,
	.node_size = sizeof(struct avc_node),
	.list_offset = offsetof(struct avc_node, list),
	.tsid_offset = offsetof(struct avc_node, ae.tsid),
	.tclass_offset = offsetof(struct avc_node, ae.tclass),
	.hash = hp_avc_hash,
	.adopt = hp_avc_adopt,
	.search = hp_avc_search,
	.loop = hp_kburst_avc_loop,
};
