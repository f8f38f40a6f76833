// VFPU matmul kernels for the llama2 port: W (d,n) @ x (n,) four output rows at a time.
// VFPU lines are turned into .word directives by vfpu.asm.rewrite_vfpu_lines before zig
// assembles this file. Each function takes one pointer to an argument block (see
// kernels_vfpu.c, VfpuArgs): o32 and the PSP EABI agree on a single argument in a0.
//
// Register plan (q80): M0 x (16 activations as floats), M1 raw int8 words of the four
// rows, M2/M4 converted weights (int8 -> float by vc2i.s then vi2f.q with 2^-24),
// M3 dot products (S3<word><row>; M7 for the second chunk of vfpu_q80_rows32), M5
// per-word group sums A0..A3, M6 row values (C600), weight scales (C610) and
// temporaries, S700 the activation scale at the end of a group.
// The group sums are integers below 2^24, so float adds are exact in any order and the
// result equals the scalar kernel's: val += ((float)isum * w_scale) * x_scale.

    .set noreorder
    .set noat
    .text

// Argument block offsets.
#define A_W      0      // const int8_t* / const float*: row 0 of the block of rows
#define A_WS     4      // const float*: weight scales (q80)
#define A_X      8      // const float*: activations (q80: quantized values as floats)
#define A_XS     12     // const float*: activation scales (q80)
#define A_OUT    16     // float*
#define A_NBYTES 20     // bytes per weight row
#define A_ROWS   24     // rows, a multiple of 4
#define A_GROUPS 28     // groups per row (q80)
#define A_STEPS  32     // inner steps per group (q80) or per row (fp32)
#define A_WSROW  36     // bytes of scales per row (q80)

// ---------------------------------------------------------------------------------
// q80, 16 weights per row per step: group size and row length multiples of 16, rows
// 16-byte aligned (lv.q).
    .globl vfpu_q80_rows16
    .ent vfpu_q80_rows16
vfpu_q80_rows16:
    lw      $t0, A_W($a0)
    lw      $t6, A_WS($a0)
    lw      $v0, A_OUT($a0)
    lw      $a1, A_NBYTES($a0)
    lw      $v1, A_ROWS($a0)
    lw      $t7, A_WSROW($a0)
    srl     $v1, $v1, 2
    beqz    $v1, 90f
    nop
10: // a block of four rows
    addu    $t1, $t0, $a1
    addu    $t2, $t1, $a1
    addu    $t3, $t2, $a1
    lw      $t4, A_X($a0)
    lw      $t5, A_XS($a0)
    lw      $t8, A_GROUPS($a0)
    move    $a3, $t6
    vzero.q C600
20: // a group
    lw      $t9, A_STEPS($a0)
    vmzero.q M500
30: // 16 weights of each of the four rows
    lv.q    C100, 0($t0)
    lv.q    C110, 0($t1)
    lv.q    C120, 0($t2)
    lv.q    C130, 0($t3)
    lv.q    C000, 0($t4)
    lv.q    C010, 16($t4)
    lv.q    C020, 32($t4)
    lv.q    C030, 48($t4)
    vc2i.s  C200, S100          // row 0, words 0-3
    vc2i.s  C210, S101
    vc2i.s  C220, S102
    vc2i.s  C230, S103
    vc2i.s  C400, S110          // row 1
    vc2i.s  C410, S111
    vc2i.s  C420, S112
    vc2i.s  C430, S113
    vi2f.q  C200, C200, 24
    vi2f.q  C210, C210, 24
    vi2f.q  C220, C220, 24
    vi2f.q  C230, C230, 24
    vi2f.q  C400, C400, 24
    vi2f.q  C410, C410, 24
    vi2f.q  C420, C420, 24
    vi2f.q  C430, C430, 24
    vdot.q  S300, C200, C000    // row 0
    vdot.q  S310, C210, C010
    vdot.q  S320, C220, C020
    vdot.q  S330, C230, C030
    vc2i.s  C200, S120          // row 2 reuses M2 once row 0's dots are issued
    vc2i.s  C210, S121
    vc2i.s  C220, S122
    vc2i.s  C230, S123
    vdot.q  S301, C400, C000    // row 1
    vdot.q  S311, C410, C010
    vdot.q  S321, C420, C020
    vdot.q  S331, C430, C030
    vc2i.s  C400, S130          // row 3 reuses M4
    vc2i.s  C410, S131
    vc2i.s  C420, S132
    vc2i.s  C430, S133
    vi2f.q  C200, C200, 24
    vi2f.q  C210, C210, 24
    vi2f.q  C220, C220, 24
    vi2f.q  C230, C230, 24
    vi2f.q  C400, C400, 24
    vi2f.q  C410, C410, 24
    vi2f.q  C420, C420, 24
    vi2f.q  C430, C430, 24
    vdot.q  S302, C200, C000    // row 2
    vdot.q  S312, C210, C010
    vdot.q  S322, C220, C020
    vdot.q  S332, C230, C030
    vdot.q  S303, C400, C000    // row 3
    vdot.q  S313, C410, C010
    vdot.q  S323, C420, C020
    vdot.q  S333, C430, C030
    addiu   $t0, $t0, 16        // pointer updates cover the dot latency
    addiu   $t1, $t1, 16
    addiu   $t2, $t2, 16
    addiu   $t3, $t3, 16
    addiu   $t4, $t4, 64
    addiu   $t9, $t9, -1
    vadd.q  C500, C500, C300
    vadd.q  C510, C510, C310
    vadd.q  C520, C520, C320
    bnez    $t9, 30b
    vadd.q  C530, C530, C330    // (delay slot)
    // end of a group: val += (isum * w_scale) * x_scale for the four rows
    vadd.q  C620, C500, C510
    vadd.q  C630, C520, C530
    lv.s    S610, 0($a3)
    addu    $t9, $a3, $t7
    lv.s    S611, 0($t9)
    addu    $t9, $t9, $t7
    lv.s    S612, 0($t9)
    addu    $t9, $t9, $t7
    lv.s    S613, 0($t9)
    lv.s    S700, 0($t5)
    vadd.q  C620, C620, C630
    vmul.q  C620, C620, C610
    vscl.q  C620, C620, S700
    vadd.q  C600, C600, C620
    addiu   $a3, $a3, 4
    addiu   $t8, $t8, -1
    bnez    $t8, 20b
    addiu   $t5, $t5, 4         // (delay slot)
    // end of the block: store four outputs, step to the next four rows
    sv.s    S600, 0($v0)
    sv.s    S601, 4($v0)
    sv.s    S602, 8($v0)
    sv.s    S603, 12($v0)
    addiu   $v0, $v0, 16
    sll     $t9, $t7, 2
    addu    $t6, $t6, $t9
    addiu   $v1, $v1, -1
    bnez    $v1, 10b
    move    $t0, $t3            // (delay slot) row 3 has advanced to the next block's row 0
90:
    jr      $ra
    nop
    .end vfpu_q80_rows16

// ---------------------------------------------------------------------------------
// q80, 32 weights per row per step (two 16-weight chunks unrolled): group size and row
// length multiples of 32; the main path for stories15M and up. Half the loop overhead of
// vfpu_q80_rows16, the step count stays in a register, and the end-of-group scaling
// (isum * w_scale * x_scale, a chain of dependent VFPU ops) is software-pipelined: a
// group's sums wait in C620/C610/S630 and are applied inside the next group's first
// step, where the loads and conversions hide their latency. Same operations in the same
// order as the scalar kernel, so still bit-exact.
    .globl vfpu_q80_rows32
    .ent vfpu_q80_rows32
vfpu_q80_rows32:
    lw      $t0, A_W($a0)
    lw      $t6, A_WS($a0)
    lw      $v0, A_OUT($a0)
    lw      $a1, A_NBYTES($a0)
    lw      $v1, A_ROWS($a0)
    lw      $t7, A_WSROW($a0)
    lw      $a2, A_STEPS($a0)
    srl     $v1, $v1, 2
    beqz    $v1, 93f
    nop
13: // a block of four rows
    addu    $t1, $t0, $a1
    addu    $t2, $t1, $a1
    addu    $t3, $t2, $a1
    lw      $t4, A_X($a0)
    lw      $t5, A_XS($a0)
    lw      $t8, A_GROUPS($a0)
    move    $a3, $t6
    vzero.q C600                // row values
    vzero.q C620                // nothing pending: (0 * 0) * 0 leaves them as they are
    vzero.q C610
    vzero.q C630
23: // a group
    move    $t9, $a2
    vmzero.q M500
33: // 32 weights of each of the four rows
    lv.q    C100, 0($t0)
    lv.q    C110, 0($t1)
    lv.q    C120, 0($t2)
    lv.q    C130, 0($t3)
    lv.q    C000, 0($t4)
    lv.q    C010, 16($t4)
    lv.q    C020, 32($t4)
    lv.q    C030, 48($t4)
    vmul.q  C620, C620, C610    // the previous group, pipelined: isum * w_scale
    vc2i.s  C200, S100          // row 0
    vc2i.s  C210, S101
    vc2i.s  C220, S102
    vc2i.s  C230, S103
    vc2i.s  C400, S110          // row 1
    vc2i.s  C410, S111
    vc2i.s  C420, S112
    vc2i.s  C430, S113
    vscl.q  C620, C620, S630    //   * x_scale
    vi2f.q  C200, C200, 24
    vi2f.q  C210, C210, 24
    vi2f.q  C220, C220, 24
    vi2f.q  C230, C230, 24
    vi2f.q  C400, C400, 24
    vi2f.q  C410, C410, 24
    vi2f.q  C420, C420, 24
    vi2f.q  C430, C430, 24
    vadd.q  C600, C600, C620    //   val += ...
    vzero.q C620                // applied once
    vdot.q  S300, C200, C000    // row 0
    vdot.q  S310, C210, C010
    vdot.q  S320, C220, C020
    vdot.q  S330, C230, C030
    vc2i.s  C200, S120          // row 2
    vc2i.s  C210, S121
    vc2i.s  C220, S122
    vc2i.s  C230, S123
    vdot.q  S301, C400, C000    // row 1
    vdot.q  S311, C410, C010
    vdot.q  S321, C420, C020
    vdot.q  S331, C430, C030
    vc2i.s  C400, S130          // row 3
    vc2i.s  C410, S131
    vc2i.s  C420, S132
    vc2i.s  C430, S133
    vi2f.q  C200, C200, 24
    vi2f.q  C210, C210, 24
    vi2f.q  C220, C220, 24
    vi2f.q  C230, C230, 24
    vi2f.q  C400, C400, 24
    vi2f.q  C410, C410, 24
    vi2f.q  C420, C420, 24
    vi2f.q  C430, C430, 24
    vdot.q  S302, C200, C000    // row 2
    vdot.q  S312, C210, C010
    vdot.q  S322, C220, C020
    vdot.q  S332, C230, C030
    vdot.q  S303, C400, C000    // row 3
    vdot.q  S313, C410, C010
    vdot.q  S323, C420, C020
    vdot.q  S333, C430, C030
    lv.q    C100, 16($t0)
    lv.q    C110, 16($t1)
    lv.q    C120, 16($t2)
    lv.q    C130, 16($t3)
    lv.q    C000, 64($t4)
    lv.q    C010, 80($t4)
    lv.q    C020, 96($t4)
    lv.q    C030, 112($t4)
    vadd.q  C500, C500, C300      // chunk A's sums
    vadd.q  C510, C510, C310
    vadd.q  C520, C520, C320
    vadd.q  C530, C530, C330
    vc2i.s  C200, S100          // row 0
    vc2i.s  C210, S101
    vc2i.s  C220, S102
    vc2i.s  C230, S103
    vc2i.s  C400, S110          // row 1
    vc2i.s  C410, S111
    vc2i.s  C420, S112
    vc2i.s  C430, S113
    vi2f.q  C200, C200, 24
    vi2f.q  C210, C210, 24
    vi2f.q  C220, C220, 24
    vi2f.q  C230, C230, 24
    vi2f.q  C400, C400, 24
    vi2f.q  C410, C410, 24
    vi2f.q  C420, C420, 24
    vi2f.q  C430, C430, 24
    vdot.q  S700, C200, C000    // row 0
    vdot.q  S710, C210, C010
    vdot.q  S720, C220, C020
    vdot.q  S730, C230, C030
    vc2i.s  C200, S120          // row 2
    vc2i.s  C210, S121
    vc2i.s  C220, S122
    vc2i.s  C230, S123
    vdot.q  S701, C400, C000    // row 1
    vdot.q  S711, C410, C010
    vdot.q  S721, C420, C020
    vdot.q  S731, C430, C030
    vc2i.s  C400, S130          // row 3
    vc2i.s  C410, S131
    vc2i.s  C420, S132
    vc2i.s  C430, S133
    vi2f.q  C200, C200, 24
    vi2f.q  C210, C210, 24
    vi2f.q  C220, C220, 24
    vi2f.q  C230, C230, 24
    vi2f.q  C400, C400, 24
    vi2f.q  C410, C410, 24
    vi2f.q  C420, C420, 24
    vi2f.q  C430, C430, 24
    vdot.q  S702, C200, C000    // row 2
    vdot.q  S712, C210, C010
    vdot.q  S722, C220, C020
    vdot.q  S732, C230, C030
    vdot.q  S703, C400, C000    // row 3
    vdot.q  S713, C410, C010
    vdot.q  S723, C420, C020
    vdot.q  S733, C430, C030
    addiu   $t0, $t0, 32
    addiu   $t1, $t1, 32
    addiu   $t2, $t2, 32
    addiu   $t3, $t3, 32
    addiu   $t4, $t4, 128
    addiu   $t9, $t9, -1
    vadd.q  C500, C500, C700
    vadd.q  C510, C510, C710
    vadd.q  C520, C520, C720
    bnez    $t9, 33b
    vadd.q  C530, C530, C730    // (delay slot)
    // end of a group: its integer sums and scales become the pending work
    vadd.q  C500, C500, C510
    lv.s    S610, 0($a3)
    addu    $t9, $a3, $t7
    lv.s    S611, 0($t9)
    addu    $t9, $t9, $t7
    lv.s    S612, 0($t9)
    addu    $t9, $t9, $t7
    vadd.q  C520, C520, C530
    lv.s    S613, 0($t9)
    lv.s    S630, 0($t5)
    addiu   $a3, $a3, 4
    addiu   $t8, $t8, -1
    vadd.q  C620, C500, C520
    bnez    $t8, 23b
    addiu   $t5, $t5, 4         // (delay slot)
    // end of the block: apply the last group, store four outputs
    vmul.q  C620, C620, C610
    vscl.q  C620, C620, S630
    vadd.q  C600, C600, C620
    sll     $t9, $t7, 2
    addu    $t6, $t6, $t9
    addiu   $v1, $v1, -1
    sv.s    S600, 0($v0)
    sv.s    S601, 4($v0)
    sv.s    S602, 8($v0)
    sv.s    S603, 12($v0)
    addiu   $v0, $v0, 16
    bnez    $v1, 13b
    move    $t0, $t3
93:
    jr      $ra
    nop
    .end vfpu_q80_rows32

// ---------------------------------------------------------------------------------
// q80, 4 weights per row per step: any group size and row length that are multiples of 4
// (stories260K: hidden_dim 172, group size 4). Rows only need 4-byte alignment (lv.s).
    .globl vfpu_q80_rows4
    .ent vfpu_q80_rows4
vfpu_q80_rows4:
    lw      $t0, A_W($a0)
    lw      $t6, A_WS($a0)
    lw      $v0, A_OUT($a0)
    lw      $a1, A_NBYTES($a0)
    lw      $v1, A_ROWS($a0)
    lw      $t7, A_WSROW($a0)
    srl     $v1, $v1, 2
    beqz    $v1, 91f
    nop
11:
    addu    $t1, $t0, $a1
    addu    $t2, $t1, $a1
    addu    $t3, $t2, $a1
    lw      $t4, A_X($a0)
    lw      $t5, A_XS($a0)
    lw      $t8, A_GROUPS($a0)
    move    $a3, $t6
    vzero.q C600
21:
    lw      $t9, A_STEPS($a0)
    vzero.q C500
31:
    lv.s    S100, 0($t0)
    lv.s    S101, 0($t1)
    lv.s    S102, 0($t2)
    lv.s    S103, 0($t3)
    lv.q    C000, 0($t4)
    vc2i.s  C200, S100
    vc2i.s  C210, S101
    vc2i.s  C220, S102
    vc2i.s  C230, S103
    vi2f.q  C200, C200, 24
    vi2f.q  C210, C210, 24
    vi2f.q  C220, C220, 24
    vi2f.q  C230, C230, 24
    vdot.q  S300, C200, C000
    vdot.q  S301, C210, C000
    vdot.q  S302, C220, C000
    vdot.q  S303, C230, C000
    addiu   $t0, $t0, 4
    addiu   $t1, $t1, 4
    addiu   $t2, $t2, 4
    addiu   $t3, $t3, 4
    addiu   $t9, $t9, -1
    addiu   $t4, $t4, 16
    bnez    $t9, 31b
    vadd.q  C500, C500, C300    // (delay slot)
    lv.s    S610, 0($a3)
    addu    $t9, $a3, $t7
    lv.s    S611, 0($t9)
    addu    $t9, $t9, $t7
    lv.s    S612, 0($t9)
    addu    $t9, $t9, $t7
    lv.s    S613, 0($t9)
    lv.s    S700, 0($t5)
    vmul.q  C620, C500, C610
    vscl.q  C620, C620, S700
    vadd.q  C600, C600, C620
    addiu   $a3, $a3, 4
    addiu   $t8, $t8, -1
    bnez    $t8, 21b
    addiu   $t5, $t5, 4
    sv.s    S600, 0($v0)
    sv.s    S601, 4($v0)
    sv.s    S602, 8($v0)
    sv.s    S603, 12($v0)
    addiu   $v0, $v0, 16
    sll     $t9, $t7, 2
    addu    $t6, $t6, $t9
    addiu   $v1, $v1, -1
    bnez    $v1, 11b
    move    $t0, $t3
91:
    jr      $ra
    nop
    .end vfpu_q80_rows4

// ---------------------------------------------------------------------------------
// fp32: four rows, 4 columns per step (row length a multiple of 4 floats, rows 16-byte
// aligned). The sum runs in a different order than the scalar loop: results agree to
// rounding, not bit for bit.
    .globl vfpu_fp32_rows4
    .ent vfpu_fp32_rows4
vfpu_fp32_rows4:
    lw      $t0, A_W($a0)
    lw      $v0, A_OUT($a0)
    lw      $a1, A_NBYTES($a0)
    lw      $v1, A_ROWS($a0)
    srl     $v1, $v1, 2
    beqz    $v1, 92f
    nop
12:
    addu    $t1, $t0, $a1
    addu    $t2, $t1, $a1
    addu    $t3, $t2, $a1
    lw      $t4, A_X($a0)
    lw      $t9, A_STEPS($a0)
    vzero.q C600
32:
    lv.q    C100, 0($t0)
    lv.q    C110, 0($t1)
    lv.q    C120, 0($t2)
    lv.q    C130, 0($t3)
    lv.q    C000, 0($t4)
    vdot.q  S200, C100, C000
    vdot.q  S201, C110, C000
    vdot.q  S202, C120, C000
    vdot.q  S203, C130, C000
    addiu   $t0, $t0, 16
    addiu   $t1, $t1, 16
    addiu   $t2, $t2, 16
    addiu   $t3, $t3, 16
    addiu   $t4, $t4, 16
    addiu   $t9, $t9, -1
    bnez    $t9, 32b
    vadd.q  C600, C600, C200    // (delay slot)
    sv.s    S600, 0($v0)
    sv.s    S601, 4($v0)
    sv.s    S602, 8($v0)
    sv.s    S603, 12($v0)
    addiu   $v0, $v0, 16
    addiu   $v1, $v1, -1
    bnez    $v1, 12b
    move    $t0, $t3
92:
    jr      $ra
    nop
    .end vfpu_fp32_rows4
