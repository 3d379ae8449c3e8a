/*
 * decode.c - what an instruction is, from its bytes: a ROI marker, a
 * user-access fact (STAC, CLAC, LFENCE, SERIALIZE; MSR PAN, LDTR, STTR),
 * a REP string kind, a load/store pair (LDP, STP), or the return from a
 * kernel entry (IRETQ, ERET).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "uaccess_profile.h"

/*
 * Iterations are counted through the instruction's memory accesses. We ask
 * for all of them (RW): QEMU 7.2's read/write filter for memory callbacks
 * is off by one (accel/tcg/plugin-gen.c op_rw() adds 1 to an already
 * 1-based value, so a W filter also passes loads and an R filter passes
 * only stores); RW is the one filter that means the same before and after
 * the fix.
 */
const struct rep_desc rep_desc[N_REP] = {
	[R_MOVS] = { "movs", 2, false },	/* load + store */
	[R_STOS] = { "stos", 1, false },	/* store */
	[R_CMPS] = { "cmps", 2, true },	/* two loads */
	[R_SCAS] = { "scas", 1, true },	/* load */
	[R_LODS] = { "lods", 1, false },	/* load */
	[R_INS]  = { "ins",  2, false },	/* dummy store + store */
	[R_OUTS] = { "outs", 1, false },	/* load */
};

/*
 * x86_64: ROI marker kind, STAC/CLAC/LFENCE/SERIALIZE fact, or REP string
 * kind. LFENCE and SERIALIZE are matched in their plain 3-byte forms
 * (0f ae e8, 0f 01 e8), the ones the smap-model kernel layer writes at
 * stac/clac sites and the kernel's barrier_nospec() emits.
 */
void x86_classify(const uint8_t *b, size_t len, int *marker,
			 int *fact, int *rep)
{
	size_t i = 0;
	bool has_rep = false;

	if (len == 8 && b[0] == 0x0f && b[1] == 0x1f && b[2] == 0x84 &&
	    b[3] == 0x00 && b[5] == 0x55 && b[6] == 0x41 && b[7] == 0x4c &&
	    (b[4] == ROI_KIND_BEGIN || b[4] == ROI_KIND_END)) {
		*marker = b[4];
		return;
	}
	if (len == 3 && b[0] == 0x0f && b[1] == 0x01 &&
	    (b[2] == 0xcb || b[2] == 0xca)) {
		*fact = b[2] == 0xcb ? F_STAC : F_CLAC;
		return;
	}
	if (len == 3 && b[0] == 0x0f && b[1] == 0xae && b[2] == 0xe8) {
		*fact = F_LFENCE;
		return;
	}
	if (len == 3 && b[0] == 0x0f && b[1] == 0x01 && b[2] == 0xe8) {
		*fact = F_SERIALIZE;
		return;
	}
	/* Legacy prefixes, then an optional REX, then a one-byte opcode. */
	for (; i < len; i++) {
		uint8_t p = b[i];

		if (p == 0xf2 || p == 0xf3)
			has_rep = true;
		else if (p != 0x66 && p != 0x67 && p != 0x2e && p != 0x36 &&
			 p != 0x3e && p != 0x26 && p != 0x64 && p != 0x65 &&
			 p != 0xf0)
			break;
	}
	if (!has_rep)
		return;
	if (i < len && (b[i] & 0xf0) == 0x40)
		i++;
	if (i + 1 != len)	/* string instructions have no operand bytes */
		return;
	switch (b[i]) {
	case 0xa4: case 0xa5: *rep = R_MOVS; break;
	case 0xaa: case 0xab: *rep = R_STOS; break;
	case 0xa6: case 0xa7: *rep = R_CMPS; break;
	case 0xae: case 0xaf: *rep = R_SCAS; break;
	case 0xac: case 0xad: *rep = R_LODS; break;
	case 0x6c: case 0x6d: *rep = R_INS; break;
	case 0x6e: case 0x6f: *rep = R_OUTS; break;
	default: break;
	}
}

/* aarch64: ROI marker kind, or a PAN-write / unprivileged-access fact. */
void a64_classify(const uint8_t *b, size_t len, int *marker, int *fact)
{
	uint32_t w;

	if (len != 4)
		return;
	w = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	    (uint32_t)b[3] << 24;
	if (w == (0xf2800000u | ((0x5500u | ROI_KIND_BEGIN) << 5) | 31u)) {
		*marker = ROI_KIND_BEGIN;
	} else if (w == (0xf2800000u | ((0x5500u | ROI_KIND_END) << 5) | 31u)) {
		*marker = ROI_KIND_END;
	} else if ((w & 0xfffff0ffu) == 0xd500409fu) {
		/* MSR PAN, #imm: op1=0, CRn=4, op2=4, Rt=31; imm in CRm<0>. */
		*fact = (w >> 8) & 1 ? F_PAN1 : F_PAN0;
	} else if ((w & 0xffffffe0u) == 0xd5184260u) {
		*fact = F_PAN_REG;	/* MSR S3_0_C4_C2_3 (PAN), Xt */
	} else if ((w & 0x3f200c00u) == 0x38000800u) {
		/* LDTR/STTR family: opc (bits 23:22) zero is the store. */
		*fact = (w >> 22) & 3 ? F_LDTR : F_STTR;
	}
}

/*
 * aarch64: P_LDP or P_STP for a load/store pair instruction, else -1. The
 * class is bits 29:27 = 101 and bit 25 = 0 (ARM ARM C4.1.4, "Load/store
 * register pair" in its four addressing forms, LDNP/STNP among them),
 * integer or SIMD (bit 26), LDPSW and STGP too; bit 22 is L, the load.
 */
int a64_pair(const uint8_t *b, size_t len)
{
	uint32_t w;

	if (len != 4)
		return -1;
	w = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	    (uint32_t)b[3] << 24;
	if ((w & 0x3a000000u) != 0x28000000u)
		return -1;
	return (w >> 22) & 1 ? P_LDP : P_STP;
}

/* IRETQ (48 cf) or ERET (d69f03e0): the end of a kernel entry. */
bool is_entry_return(const uint8_t *b, size_t len)
{
	if (arch == ARCH_X86_64)
		return len == 2 && b[0] == 0x48 && b[1] == 0xcf;
	return len == 4 && b[0] == 0xe0 && b[1] == 0x03 && b[2] == 0x9f &&
	       b[3] == 0xd6;
}


/*
 * In the task switch (a symbol with .switcher set), the instruction that
 * saves the outgoing task's context into its task_struct (SWITCH_PREV) or
 * loads the incoming one's (SWITCH_NEXT), else -1. Each makes one access,
 * at the same offset into either task's struct, so its address names the
 * task (interrupts.c, switch_mem):
 *   x86_64 __switch_to_asm  mov %rsp, off(%rdi)  48 89 a7 <disp32>
 *                           mov off(%rsi), %rsp  48 8b a6 <disp32>
 *   arm64 cpu_switch_to     str x30, [x8]        f900011e  (x8: prev's
 *                           ldr x30, [x8]        f940011e   or next's
 *                                                 cpu_context.pc)
 */
int switch_access(const uint8_t *b, size_t len)
{
	uint32_t w;

	if (arch == ARCH_X86_64) {
		if (len != 7 || b[0] != 0x48)
			return -1;
		if (b[1] == 0x89 && b[2] == 0xa7)
			return SWITCH_PREV;
		if (b[1] == 0x8b && b[2] == 0xa6)
			return SWITCH_NEXT;
		return -1;
	}
	if (len != 4)
		return -1;
	w = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	    (uint32_t)b[3] << 24;
	return w == 0xf900011eu ? SWITCH_PREV : w == 0xf940011eu ? SWITCH_NEXT : -1;
}
