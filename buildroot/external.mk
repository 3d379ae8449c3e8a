include $(sort $(wildcard $(BR2_EXTERNAL_UACCESS_PATH)/package/*/*.mk))
