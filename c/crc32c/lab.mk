# SPDX-License-Identifier: GPL-2.0-only
#
# CRC32C lab: peers detected at build time, never required.
# ISA-L (Debian libisal-dev): crc32_iscsi, detected by its header.
# DPDK (libdpdk-dev): rte_hash_crc, inline in rte_hash_crc.h; opt-in with
# `make HOTPATH_WITH_DPDK=1` because it was never built on the development
# machine (its x86 dispatch lives in librte_hash/librte_eal).

ifneq ($(wildcard /usr/include/isa-l/crc.h),)
LAB_CFLAGS += -DHOTPATH_HAVE_ISAL
LAB_LDLIBS += -lisal
endif

DPDK_INC := $(firstword $(wildcard /usr/include/dpdk /usr/local/include/dpdk))
ifneq ($(HOTPATH_WITH_DPDK)$(wildcard $(DPDK_INC)/rte_hash_crc.h),)
ifeq ($(HOTPATH_WITH_DPDK),1)
LAB_CFLAGS += -DHOTPATH_HAVE_DPDK -I$(DPDK_INC) \
	$(addprefix -I,$(wildcard /usr/include/x86_64-linux-gnu/dpdk))
LAB_LDLIBS += -lrte_hash -lrte_eal
endif
endif
