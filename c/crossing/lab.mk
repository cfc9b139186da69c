# SPDX-License-Identifier: GPL-2.0-only
#
# crossing lab: io_uring through liburing (Debian liburing-dev), detected by
# its header; without it the io_uring path is listed as unavailable.
# And hotpath-crossing-static, the lab's one program (c/crossing/tool/),
# linked -static so that it runs in a guest kernel's busybox initramfs as
# well as on the host. Its main() keeps it out of the library's c/*/*.c.

ifneq ($(wildcard /usr/include/liburing.h),)
LAB_CFLAGS += -DHOTPATH_HAVE_LIBURING
LAB_LDLIBS += -luring
endif

all build: $(BUILD)/hotpath-crossing-static

$(BUILD)/hotpath-crossing-static: $(BUILD)/obj/c/crossing/tool/main.o $(BUILD)/libhotpath.a
	$(CC) -static -o $@ $^ $(filter -luring,$(LAB_LDLIBS)) -lm
