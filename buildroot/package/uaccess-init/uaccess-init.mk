################################################################################
#
# uaccess-init
#
################################################################################

# The sources live in the uaccess-lab checkout, next to this external tree.
UACCESS_INIT_VERSION = local
UACCESS_INIT_SITE = $(BR2_EXTERNAL_UACCESS_PATH)/init
UACCESS_INIT_SITE_METHOD = local
UACCESS_INIT_ARCH = $(if $(BR2_aarch64),arm64,x86_64)

# The init shares the ROI header and job-file parser with the workloads.
define UACCESS_INIT_BUILD_CMDS
	$(MAKE) -C $(@D) ARCH=$(UACCESS_INIT_ARCH) CC="$(TARGET_CC)" \
		WORKLOADS=$(BR2_EXTERNAL_UACCESS_PATH)/../workloads OUT=$(@D)/out
endef

# /init for the initramfs; /sbin/init for the ext2 root.
define UACCESS_INIT_INSTALL_TARGET_CMDS
	$(INSTALL) -D -m 0755 $(@D)/out/init $(TARGET_DIR)/init
	mkdir -p $(TARGET_DIR)/sbin
	ln -sf /init $(TARGET_DIR)/sbin/init
endef

$(eval $(generic-package))
