/*
 * qemu_plugin_api.h - uaccess-lab's own declaration of the part of the QEMU
 * TCG plugin API that uaccess_profile.c uses.
 *
 * This is NOT QEMU's qemu-plugin.h. It declares only the types, enums and
 * functions we call, written against the ABI of QEMU 7.2 (plugin API
 * version 1, QEMU_PLUGIN_VERSION 1), which is what Debian 12 ships
 * (qemu-system 1:7.2+dfsg). The functions themselves are exported by the
 * qemu-system-* binary and resolved when QEMU dlopen()s the plugin, so the
 * plugin links against nothing.
 *
 * Everything here must keep the 7.2 layout and values:
 *   - qemu_info_t: target_name, {min, cur} version, system_emulation, then
 *     an anonymous union whose "system" member holds smp_vcpus, max_vcpus.
 *   - enum values are the implicit 0, 1, 2 ... of the 7.2 header, except
 *     qemu_plugin_mem_rw, which starts at 1 (R = 1, W = 2, RW = 3).
 * Later QEMU releases (API version 2 and up) changed parts of this
 * (per-vCPU scoreboards, register access, deprecated the plain inline op);
 * do not use this header with them without re-checking.
 */
#ifndef UACCESS_QEMU_PLUGIN_API_H
#define UACCESS_QEMU_PLUGIN_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

/* The API version this plugin is built against (QEMU 7.2 accepts 0..1). */
#define QEMU_PLUGIN_VERSION 1

typedef uint64_t qemu_plugin_id_t;

/* The plugin must define this symbol; QEMU refuses to load it otherwise. */
extern QEMU_PLUGIN_EXPORT int qemu_plugin_version;

typedef struct qemu_info_t {
	const char *target_name;	/* "x86_64", "aarch64", ... */
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

/* Opaque handles, valid only inside the translation callback. */
struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_mem_rw {
	QEMU_PLUGIN_MEM_R = 1,
	QEMU_PLUGIN_MEM_W,
	QEMU_PLUGIN_MEM_RW,
};

/* 7.2 has exactly one inline operation. */
enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
/* A memory access: its (opaque) size and sign, and its virtual address. */
typedef uint32_t qemu_plugin_meminfo_t;
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index,
					  qemu_plugin_meminfo_t info,
					  uint64_t vaddr, void *userdata);

/* Entry point the plugin exports; non-zero return makes QEMU refuse it. */
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv);

/* Registration. */
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *userdata);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
						enum qemu_plugin_op op,
						void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn,
				      qemu_plugin_vcpu_mem_cb_t cb,
				      enum qemu_plugin_cb_flags flags,
				      enum qemu_plugin_mem_rw rw,
				      void *userdata);
void qemu_plugin_register_vcpu_mem_inline(struct qemu_plugin_insn *insn,
					  enum qemu_plugin_mem_rw rw,
					  enum qemu_plugin_op op, void *ptr,
					  uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);

/* Translation-time queries. */
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

/* Output through QEMU's log (stderr unless -D is given). */
void qemu_plugin_outs(const char *string);

#endif /* UACCESS_QEMU_PLUGIN_API_H */
