// The scalar q80 matmul (kernels.c matmul_q80, runq.c's loop) written as psp-gcc -O2
// compiles such a loop for the Allegrex: the group's int8 products accumulate in HI/LO
// with madd (one instruction a weight, no mflo/addu per product), the pointer steps fill
// the gaps and the branch delay slot; then per group the two integer divisions the C
// writes for the scale indices ((in + j) / gs unsigned, j / gs signed: division by a
// variable stays a division) and the same float arithmetic in the same order, so the
// values are the C kernel's bit for bit: val += ((float)isum * w_scale) * x_scale.
// One pointer to an argument block (kernels_madd.c MaddArgs): o32 and the PSP EABI
// agree on a0.

    .set noreorder
    .set noat
    .text

#define M_W     0       // const int8_t *: row 0's values (the file's layout)
#define M_WS    4       // const float *: the weights' scales, one per group
#define M_X     8       // const int8_t *: the quantized input
#define M_XS    12      // const float *: its scales
#define M_OUT   16      // float *
#define M_N     20      // row length
#define M_D     24      // rows
#define M_GS    28      // group size

// The Allegrex encodes madd in SPECIAL (funct 0x1C), not where MIPS32 puts it (SPECIAL2),
// so it is written as a word: madd rs, rt adds rs * rt (signed) to HI:LO.
#define MADD(rs, rt) .word (0x1C | ((rs) << 21) | ((rt) << 16))
#define V0 2
#define V1 3

    .globl q80_madd
    .ent q80_madd
q80_madd:
    lw      $t0, M_W($a0)
    lw      $t1, M_WS($a0)
    lw      $t2, M_X($a0)
    lw      $t3, M_XS($a0)
    lw      $t4, M_OUT($a0)
    lw      $t5, M_N($a0)
    lw      $t6, M_D($a0)
    lw      $t7, M_GS($a0)
    blez    $t6, 9f
    move    $t8, $zero          // in = i * n (delay slot)
1:  // a row
    mtc1    $zero, $f0          // val = 0.0f
    move    $t9, $zero          // j
2:  // a group: ival = sum of xq[j + k] * wq[in + j + k]
    addu    $a1, $t2, $t9       // &xq[j]
    addu    $a2, $t0, $t8
    addu    $a2, $a2, $t9       // &wq[in + j]
    addu    $a3, $a1, $t7       // where the group ends
    mtlo    $zero
    mthi    $zero
3:  lb      $v0, 0($a1)
    lb      $v1, 0($a2)
    addiu   $a1, $a1, 1
    MADD(V0, V1)
    bne     $a1, $a3, 3b
    addiu   $a2, $a2, 1         // (delay slot)
    mflo    $v0                 // ival
    addu    $v1, $t8, $t9       // in + j
    divu    $zero, $v1, $t7
    mflo    $v1                 // (in + j) / gs
    div     $zero, $t9, $t7
    mflo    $at                 // j / gs
    sll     $v1, $v1, 2
    addu    $v1, $t1, $v1
    lwc1    $f2, 0($v1)         // the weights' scale
    sll     $at, $at, 2
    addu    $at, $t3, $at
    lwc1    $f4, 0($at)         // the input's
    mtc1    $v0, $f6
    cvt.s.w $f6, $f6
    mul.s   $f6, $f6, $f2
    mul.s   $f6, $f6, $f4
    addu    $t9, $t9, $t7       // j += gs
    bne     $t9, $t5, 2b
    add.s   $f0, $f0, $f6       // val += ... (delay slot)
    swc1    $f0, 0($t4)         // out[i]
    addiu   $t6, $t6, -1
    addiu   $t4, $t4, 4
    bnez    $t6, 1b
    addu    $t8, $t8, $t5       // in += n (delay slot)
9:
    jr      $ra
    nop
    .end q80_madd
