################################################################################
#
# uaccess-workloads
#
################################################################################

UACCESS_WORKLOADS_VERSION = local
UACCESS_WORKLOADS_SITE = $(BR2_EXTERNAL_UACCESS_PATH)/../workloads
UACCESS_WORKLOADS_SITE_METHOD = local
UACCESS_WORKLOADS_ARCH = $(if $(BR2_aarch64),arm64,x86_64)
UACCESS_WORKLOADS_BINARIES = lstat-storm fstat-loop statx-loop readlink-loop stat-namelen probe \
	usercopy-loop

define UACCESS_WORKLOADS_BUILD_CMDS
	$(MAKE) -C $(@D) ARCH=$(UACCESS_WORKLOADS_ARCH) CC="$(TARGET_CC)" OUT=$(@D)/out
endef

define UACCESS_WORKLOADS_INSTALL_TARGET_CMDS
	$(foreach b,$(UACCESS_WORKLOADS_BINARIES),
		$(INSTALL) -D -m 0755 $(@D)/out/$(b) $(TARGET_DIR)/usr/bin/$(b)
	)
endef

$(eval $(generic-package))
