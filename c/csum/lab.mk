# SPDX-License-Identifier: GPL-2.0-only
#
# csum lab: optional peers, detected here and never required.
# DPDK (Debian libdpdk-dev): rte_raw_cksum() is header-only, so only its
# include directories are needed; no -march or library from its pkg-config.
HOTPATH_DPDK_CFLAGS := $(shell pkg-config --exists libdpdk 2>/dev/null && \
	pkg-config --cflags-only-I libdpdk 2>/dev/null)
ifneq ($(strip $(HOTPATH_DPDK_CFLAGS)),)
LAB_CFLAGS += -DHOTPATH_CSUM_HAVE_DPDK $(HOTPATH_DPDK_CFLAGS)
endif
