################################################################################
#
# uaccess-workloads
#
################################################################################

UACCESS_WORKLOADS_VERSION = local
UACCESS_WORKLOADS_SITE = $(BR2_EXTERNAL_UACCESS_PATH)/../workloads
UACCESS_WORKLOADS_SITE_METHOD = local
UACCESS_WORKLOADS_ARCH = $(if $(BR2_aarch64),arm64,x86_64)

define UACCESS_WORKLOADS_BUILD_CMDS
	$(MAKE) -C $(@D) ARCH=$(UACCESS_WORKLOADS_ARCH) CC="$(TARGET_CC)" OUT=$(@D)/out
endef

# out/ holds only the programs: one for each file of workloads/src.
define UACCESS_WORKLOADS_INSTALL_TARGET_CMDS
	$(INSTALL) -D -m 0755 -t $(TARGET_DIR)/usr/bin $(@D)/out/*
endef

$(eval $(generic-package))
