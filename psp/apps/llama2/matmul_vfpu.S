// VFPU kernels for the llama2 port: matmuls W (d,n) @ x (n,) four output rows at a time,
// the activation quantization and the argmax (see kernels_vfpu.c for how each is picked).
// VFPU lines are turned into .word directives by vfpu.asm.rewrite_vfpu_lines before zig
// assembles this file (so their offsets are plain numbers). The matmuls and the
// quantization take one pointer to an argument block (kernels_vfpu.c, VfpuArgs and
// QuantArgs): o32 and the PSP EABI agree on the first arguments in a0..a3.
//
// Register plan (q80 matmuls): M0 x (16 activations as floats), M1 raw int8 words of the
// four rows, M2/M4 converted weights (int8 -> float by vc2i.s then vi2f.q with 2^-24),
// M3 dot products (S3<word><row>; M7 for the second 16-weight chunk), M5 group sums,
// M6 row values (C600), weight scales (C610), temporaries and the activation scale.
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
// q80, group size exactly 32 (stories15M, stories42M): one loop iteration is one group
// (32 weights) of four rows, and the loop runs across the whole matrix as a two-stage
// software pipeline. Stage 1 of group g: loads, conversions and dot products (chunk A,
// weights 0-15, into M3; chunk B, weights 16-31, into M7), then chunk A's three-add sum
// tree (C500, C510 -> C520). Stage 2 of group g, done inside group g+1's chunk A where
// the conversions cover its latencies: chunk B's sum tree, isum = A + B, then
// val += (isum * w_scale) * x_scale (the scalar kernel's order, so still bit-exact).
// The first group of a block of rows finishes the previous block's last group, stores
// its four outputs and clears val; the very first one stores into the argument block's
// scratch words. No partial-sum clearing, no per-group branches beyond the loop's own.
// GPRs: t0-t3 row pointers, t4 x, t5 x scales, t6-t9 weight scales of rows 0-3,
// a1 row bytes, a2 bytes of scales per row, a3 where x ends, v0 where the previous
// block's outputs go, at where this block's go, v1 blocks left.
#define A_SCRATCH 40    // float[8]: the first block's dummy "previous block" outputs

.macro Q80_GROUP32 first
    lv.q    C100, 0($t0)        // chunk A: 16 weights of each row, 16 activations
    lv.q    C110, 0($t1)
    lv.q    C120, 0($t2)
    lv.q    C130, 0($t3)
    lv.q    C000, 0($t4)
    lv.q    C010, 16($t4)
    lv.q    C020, 32($t4)
    lv.q    C030, 48($t4)
    vadd.q  C530, C700, C710    // stage 2 of the previous group: chunk B's sum tree
    vc2i.s  C200, S100          // row 0
    vc2i.s  C210, S101
    vc2i.s  C220, S102
    vc2i.s  C230, S103
    vadd.q  C620, C720, C730
    vc2i.s  C400, S110          // row 1
    vc2i.s  C410, S111
    vc2i.s  C420, S112
    vc2i.s  C430, S113
    vi2f.q  C200, C200, 24
    vi2f.q  C210, C210, 24
    vi2f.q  C220, C220, 24
    vi2f.q  C230, C230, 24
    vadd.q  C530, C530, C620    //   chunk B's sum
    vi2f.q  C400, C400, 24
    vi2f.q  C410, C410, 24
    vi2f.q  C420, C420, 24
    vi2f.q  C430, C430, 24
    vdot.q  S300, C200, C000    // row 0
    vdot.q  S310, C210, C010
    vdot.q  S320, C220, C020
    vdot.q  S330, C230, C030
    vadd.q  C620, C530, C520    //   isum = chunk A's sum + chunk B's sum
    vc2i.s  C200, S120          // row 2
    vc2i.s  C210, S121
    vc2i.s  C220, S122
    vc2i.s  C230, S123
    vdot.q  S301, C400, C000    // row 1
    vdot.q  S311, C410, C010
    vmul.q  C620, C620, C610    //   * w_scale
    vdot.q  S321, C420, C020
    vdot.q  S331, C430, C030
    vc2i.s  C400, S130          // row 3
    vc2i.s  C410, S131
    vc2i.s  C420, S132
    vc2i.s  C430, S133
    vscl.q  C620, C620, S630    //   * x_scale
    vi2f.q  C200, C200, 24
    vi2f.q  C210, C210, 24
    vi2f.q  C220, C220, 24
    vi2f.q  C230, C230, 24
    vi2f.q  C400, C400, 24
    vadd.q  C600, C600, C620    //   val += ...
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
    lv.q    C100, 16($t0)       // chunk B
    lv.q    C110, 16($t1)
    lv.q    C120, 16($t2)
    lv.q    C130, 16($t3)
    lv.q    C000, 64($t4)
    lv.q    C010, 80($t4)
    lv.q    C020, 96($t4)
    lv.q    C030, 112($t4)
.if \first
    sv.s    S600, 0($v0)        // the previous block is complete: its four outputs
    sv.s    S601, 4($v0)
    sv.s    S602, 8($v0)
    sv.s    S603, 12($v0)
    move    $v0, $at
    addiu   $at, $at, 16
    vzero.q C600
.endif
    vc2i.s  C200, S100          // row 0
    vc2i.s  C210, S101
    vc2i.s  C220, S102
    vc2i.s  C230, S103
    vadd.q  C500, C300, C310    // chunk A's sum tree
    vc2i.s  C400, S110          // row 1
    vc2i.s  C410, S111
    vc2i.s  C420, S112
    vc2i.s  C430, S113
    vadd.q  C510, C320, C330
    vi2f.q  C200, C200, 24
    vi2f.q  C210, C210, 24
    vi2f.q  C220, C220, 24
    vi2f.q  C230, C230, 24
    vi2f.q  C400, C400, 24
    vadd.q  C520, C500, C510    //   chunk A's sum, kept for stage 2
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
    lv.s    S610, 0($t6)        // this group's scales, for its stage 2
    lv.s    S611, 0($t7)
    lv.s    S612, 0($t8)
    lv.s    S613, 0($t9)
    lv.s    S630, 0($t5)
.endm

// Pointer steps to the next group (32 weights of each row, 128 bytes of x, one scale
// each), but t9's: the callers put that one in a branch delay slot.
.macro Q80_STEP32
    addiu   $t0, $t0, 32
    addiu   $t1, $t1, 32
    addiu   $t2, $t2, 32
    addiu   $t3, $t3, 32
    addiu   $t4, $t4, 128
    addiu   $t5, $t5, 4
    addiu   $t6, $t6, 4
    addiu   $t7, $t7, 4
    addiu   $t8, $t8, 4
.endm

    .globl vfpu_q80_group32
    .ent vfpu_q80_group32
vfpu_q80_group32:
    lw      $t0, A_W($a0)
    lw      $t9, A_WS($a0)
    lw      $at, A_OUT($a0)
    lw      $a1, A_NBYTES($a0)
    lw      $v1, A_ROWS($a0)
    lw      $a2, A_WSROW($a0)
    addiu   $v0, $a0, A_SCRATCH // the first block has no previous block to store
    srl     $v1, $v1, 2
    beqz    $v1, 94f
    move    $t3, $t0            // (delay slot) as if a block ended just before row 0
    subu    $t9, $t9, $a2       // likewise for the scale pointers: t6 = t9 + a2 below
14: // a block of four rows
    lw      $t4, A_X($a0)
    lw      $a3, A_GROUPS($a0)
    lw      $t5, A_XS($a0)
    move    $t0, $t3
    addu    $t1, $t0, $a1
    addu    $t2, $t1, $a1
    addu    $t3, $t2, $a1
    addu    $t6, $t9, $a2
    addu    $t7, $t6, $a2
    addu    $t8, $t7, $a2
    addu    $t9, $t8, $a2
    sll     $a3, $a3, 7
    addu    $a3, $a3, $t4       // the end of x: the loop's test
    Q80_GROUP32 1
    Q80_STEP32
    beq     $t4, $a3, 34f
    addiu   $t9, $t9, 4         // (delay slot)
24: // the other groups of the block
    Q80_GROUP32 0
    Q80_STEP32
    bne     $t4, $a3, 24b
    addiu   $t9, $t9, 4         // (delay slot)
34:
    addiu   $v1, $v1, -1
    bnez    $v1, 14b
    subu    $t9, $t9, $a2       // (delay slot) t9 is past row 3's scales: back to row 3's end
    // stage 2 of the last group, then the last block's outputs
    vadd.q  C530, C700, C710
    vadd.q  C620, C720, C730
    vadd.q  C530, C530, C620
    vadd.q  C620, C530, C520
    vmul.q  C620, C620, C610
    vscl.q  C620, C620, S630
    vadd.q  C600, C600, C620
    sv.s    S600, 0($v0)
    sv.s    S601, 4($v0)
    sv.s    S602, 8($v0)
    sv.s    S603, 12($v0)
94:
    jr      $ra
    nop
    .end vfpu_q80_group32

// ---------------------------------------------------------------------------------
// q80, group size 32, weights re-laid at load (model.c) in blocks of eight rows: per
// group one 288-byte record, the eight rows' 32 int8 values (row r at 32 r) then their
// eight fp32 scales (at 256). The matrix is one sequential stream (no DRAM row opens
// where separate row and scale streams meet), one pointer steps over it, two lv.q take
// the scales, and each quad of activations serves eight rows. One loop iteration is a
// group of eight rows in two 16-weight chunks (Q80_CHUNK8): per chunk, rows 0-3 are loaded
// first and rows 4-7 into the same registers as rows 0-3 are converted; dot products of
// rows 0-3 go to M5, of rows 4-7 to M6. Rows 0-3's sum tree and scaling run late in the
// same chunk; rows 4-7's (their dots come last) early in the next chunk, so a group's
// rows 4-7 are scaled inside the next group's chunk A. Integer sums, so the scalar
// kernel's val += (isum * w_scale) * x_scale bit for bit.
// VFPU: M0 x, M1 raw weights, M2 scales (C200 rows 0-3, C210 rows 4-7, S220 x),
// M3/M4 conversions, M5/M6 dot products, M7 row values (C700 rows 0-3, C710 rows 4-7)
// and the isums (C720, C730).
// GPRs: t0 the record, t4 x, t5 x scales, a2 x, t6 x scales, a3 where x ends, v0 where
// the previous block's outputs go, at where this block's go, v1 blocks left.
#define Q80_RECORD8 288
.macro Q80_CHUNK8 b, first
.if \b
    lv.q    C100, 16($t0)       // chunk B: 16 weights of rows 0-3, 16 activations
    lv.q    C110, 48($t0)
    lv.q    C120, 80($t0)
    lv.q    C130, 112($t0)
    lv.q    C000, 64($t4)
    lv.q    C010, 80($t4)
    lv.q    C020, 96($t4)
    lv.q    C030, 112($t4)
    lv.q    C200, 256($t0)      // this group's scales: rows 0-3, rows 4-7, x
    lv.q    C210, 272($t0)
    lv.s    S220, 0($t5)
.else
    lv.q    C100, 0($t0)        // chunk A: 16 weights of rows 0-3, 16 activations
    lv.q    C110, 32($t0)
    lv.q    C120, 64($t0)
    lv.q    C130, 96($t0)
    lv.q    C000, 0($t4)
    lv.q    C010, 16($t4)
    lv.q    C020, 32($t4)
    lv.q    C030, 48($t4)
.endif
    vc2i.s  C300, S100          // row 0
    vc2i.s  C310, S101
    vc2i.s  C320, S102
    vc2i.s  C330, S103
.if \b
    lv.q    C100, 144($t0)     // row 4, chunk B
.else
    lv.q    C100, 128($t0)     // row 4, chunk A
.endif
    vadd.q  C600, C600, C610    // rows 4-7 of the previous chunk: sum tree
    vc2i.s  C400, S110          // row 1
    vc2i.s  C410, S111
    vc2i.s  C420, S112
    vc2i.s  C430, S113
.if \b
    lv.q    C110, 176($t0)     // row 5, chunk B
.else
    lv.q    C110, 160($t0)     // row 5, chunk A
.endif
    vadd.q  C620, C620, C630
    vi2f.q  C300, C300, 24
    vi2f.q  C310, C310, 24
    vi2f.q  C320, C320, 24
    vi2f.q  C330, C330, 24
.if \b
    vadd.q  C730, C600, C620    //   chunk A's sum, kept
.else
    vadd.q  C600, C600, C620
.endif
    vi2f.q  C400, C400, 24
    vi2f.q  C410, C410, 24
    vi2f.q  C420, C420, 24
    vi2f.q  C430, C430, 24
.if \b == 0
    vadd.q  C730, C730, C600    //   isum = chunk A's + chunk B's (previous group)
.endif
    vdot.q  S500, C300, C000    // row 0
    vdot.q  S510, C310, C010
    vdot.q  S520, C320, C020
    vdot.q  S530, C330, C030
.if \b == 0
    vmul.q  C730, C730, C210    //   * w_scale
.endif
    vc2i.s  C300, S120          // row 2
    vc2i.s  C310, S121
    vc2i.s  C320, S122
    vc2i.s  C330, S123
.if \b
    lv.q    C120, 208($t0)     // row 6, chunk B
.else
    lv.q    C120, 192($t0)     // row 6, chunk A
.endif
.if \b == 0
    vscl.q  C730, C730, S220    //   * x_scale
.endif
    vdot.q  S501, C400, C000    // row 1
    vdot.q  S511, C410, C010
    vdot.q  S521, C420, C020
    vdot.q  S531, C430, C030
.if \b == 0
    vadd.q  C710, C710, C730    //   val += ...
.endif
    vc2i.s  C400, S130          // row 3
    vc2i.s  C410, S131
    vc2i.s  C420, S132
    vc2i.s  C430, S133
.if \b
    lv.q    C130, 240($t0)     // row 7, chunk B
.else
    lv.q    C130, 224($t0)     // row 7, chunk A
.endif
.if \first
    sv.s    S700, 0($v0)        // the previous block is complete: its eight outputs
    sv.s    S701, 4($v0)
    sv.s    S702, 8($v0)
    sv.s    S703, 12($v0)
    sv.s    S710, 16($v0)
    sv.s    S711, 20($v0)
    sv.s    S712, 24($v0)
    sv.s    S713, 28($v0)
    move    $v0, $at
    addiu   $at, $at, 32
    vzero.q C700
    vzero.q C710
.endif
    vi2f.q  C300, C300, 24
    vi2f.q  C310, C310, 24
    vi2f.q  C320, C320, 24
    vi2f.q  C330, C330, 24
    vi2f.q  C400, C400, 24
    vi2f.q  C410, C410, 24
    vi2f.q  C420, C420, 24
    vi2f.q  C430, C430, 24
    vdot.q  S502, C300, C000    // row 2
    vdot.q  S512, C310, C010
    vdot.q  S522, C320, C020
    vdot.q  S532, C330, C030
    vc2i.s  C300, S100          // row 4
    vc2i.s  C310, S101
    vc2i.s  C320, S102
    vc2i.s  C330, S103
    vdot.q  S503, C400, C000    // row 3
    vdot.q  S513, C410, C010
    vdot.q  S523, C420, C020
    vdot.q  S533, C430, C030
    vc2i.s  C400, S110          // row 5
    vc2i.s  C410, S111
    vc2i.s  C420, S112
    vc2i.s  C430, S113
    vi2f.q  C300, C300, 24
    vi2f.q  C310, C310, 24
    vi2f.q  C320, C320, 24
    vi2f.q  C330, C330, 24
    vadd.q  C500, C500, C510    // rows 0-3 of this chunk: sum tree
    vi2f.q  C400, C400, 24
    vi2f.q  C410, C410, 24
    vi2f.q  C420, C420, 24
    vi2f.q  C430, C430, 24
    vadd.q  C520, C520, C530
    vdot.q  S600, C300, C000    // row 4
    vdot.q  S610, C310, C010
    vdot.q  S620, C320, C020
    vdot.q  S630, C330, C030
.if \b
    vadd.q  C500, C500, C520
.else
    vadd.q  C720, C500, C520    //   chunk A's sum, kept
.endif
    vc2i.s  C300, S120          // row 6
    vc2i.s  C310, S121
    vc2i.s  C320, S122
    vc2i.s  C330, S123
.if \b
    vadd.q  C720, C720, C500    //   isum = chunk A's + chunk B's
.endif
    vdot.q  S601, C400, C000    // row 5
    vdot.q  S611, C410, C010
    vdot.q  S621, C420, C020
    vdot.q  S631, C430, C030
.if \b
    vmul.q  C720, C720, C200    //   * w_scale
.endif
    vc2i.s  C400, S130          // row 7
    vc2i.s  C410, S131
    vc2i.s  C420, S132
    vc2i.s  C430, S133
.if \b
    vscl.q  C720, C720, S220    //   * x_scale
.endif
    vi2f.q  C300, C300, 24
    vi2f.q  C310, C310, 24
    vi2f.q  C320, C320, 24
    vi2f.q  C330, C330, 24
.if \b
    vadd.q  C700, C700, C720    //   val += ...
.endif
    vi2f.q  C400, C400, 24
    vi2f.q  C410, C410, 24
    vi2f.q  C420, C420, 24
    vi2f.q  C430, C430, 24
    vdot.q  S602, C300, C000    // row 6
    vdot.q  S612, C310, C010
    vdot.q  S622, C320, C020
    vdot.q  S632, C330, C030
    vdot.q  S603, C400, C000    // row 7
    vdot.q  S613, C410, C010
    vdot.q  S623, C420, C020
    vdot.q  S633, C430, C030
.endm


    .globl vfpu_q80_block32
    .ent vfpu_q80_block32
vfpu_q80_block32:
    lw      $t0, A_W($a0)
    lw      $at, A_OUT($a0)
    lw      $v1, A_ROWS($a0)
    lw      $a2, A_X($a0)
    lw      $t6, A_XS($a0)
    lw      $a3, A_GROUPS($a0)
    addiu   $v0, $a0, A_SCRATCH // the first block has no previous block to store
    srl     $v1, $v1, 3
    sll     $a3, $a3, 7
    addu    $a3, $a3, $a2       // the end of x: the loop's test
    beqz    $v1, 97f
    move    $t4, $a2            // (delay slot)
17: // a block of eight rows
    move    $t5, $t6
    Q80_CHUNK8 0, 1
    Q80_CHUNK8 1, 0
    addiu   $t4, $t4, 128
    addiu   $t5, $t5, 4
    beq     $t4, $a3, 37f
    addiu   $t0, $t0, Q80_RECORD8   // (delay slot)
27: // the other groups of the block
    Q80_CHUNK8 0, 0
    Q80_CHUNK8 1, 0
    addiu   $t4, $t4, 128
    addiu   $t5, $t5, 4
    bne     $t4, $a3, 27b
    addiu   $t0, $t0, Q80_RECORD8   // (delay slot)
37:
    addiu   $v1, $v1, -1
    bnez    $v1, 17b
    move    $t4, $a2            // (delay slot)
    // rows 4-7 of the last group, then the last block's outputs
    vadd.q  C600, C600, C610
    vadd.q  C620, C620, C630
    vadd.q  C600, C600, C620
    vadd.q  C730, C730, C600
    vmul.q  C730, C730, C210
    vscl.q  C730, C730, S220
    vadd.q  C710, C710, C730
    sv.s    S700, 0($v0)
    sv.s    S701, 4($v0)
    sv.s    S702, 8($v0)
    sv.s    S703, 12($v0)
    sv.s    S710, 16($v0)
    sv.s    S711, 20($v0)
    sv.s    S712, 24($v0)
    sv.s    S713, 28($v0)
97:
    jr      $ra
    nop
    .end vfpu_q80_block32

// ---------------------------------------------------------------------------------
// q40, group size 32, as the file holds it (llama2.h Q40_RECORD_BYTES): per block of
// eight rows and group, one 144-byte record of the rows' 16 bytes (row r at 16 r), then
// their eight fp16 scales (at 128). Byte k of a row holds weight k in its low nibble as
// q + 8 and weight k + 16 in its high nibble (signed): as a signed byte s = 16 h + l + 8,
// so vc2i (s << 24) and vi2f by 2^-28 give S = s / 16, and floor(S) = h (vf2id, vi2f).
// The C prepares per group A[k] = x[k+16] - 16 x[k] and B[k] = 16 x[k] (k < 16, as
// floats, in the order A0-7 B0-7 A8-15 B8-15) and C = 8 (x[0] + ... + x[15]): then
//   sum of h x[k+16] + l x[k] = H . A + S . B - C,
// every product and partial sum an integer below 2^24 (exact in any order), and the
// result is the scalar kernel's val += ((float)isum * w_scale) * x_scale bit for bit.
// The schedule is vfpu_q80_block32's: a group of eight rows in two chunks (bytes 0-7,
// weights 0-7 and 16-23; bytes 8-15, weights 8-15 and 24-31), dots of rows 0-3 to M5,
// of rows 4-7 to M6; rows 0-3 finished late in chunk B, rows 4-7 in the next chunk A.
// VFPU: M0 A and B of the chunk, M1 raw rows, M2 weight scales (C200 rows 0-3, C210
// rows 4-7), C (C220), the raw fp16 scales and then x's scale (S233), M3/M4 conversions
// (see Q40_ROWS2), M5/M6 dots, M7 row values
// (C700 rows 0-3, C710 rows 4-7) and the isums (C720, C730).
// GPRs: t0 the record, t4 A/B, t5 x scales, t7 C quads; a2, t6, t8 where they start;
// a3 where A/B end; v0 where the previous block's outputs go, at where this block's go,
// v1 blocks left.
#define Q40_RECORD8 144

// A pair of rows (rp 0: raw quads 0-1 of M1, 1: quads 2-3) and a pair of words (wp 0:
// words 0-1, 1: words 2-3) in three phases, between which the chunk puts independent
// work to cover the latencies: Q40_C the signed bytes as S = s / 16 (M3: the first row,
// M4: the second; per word C3x0 / C3x2 the bytes, then C3x1 / C3x3 S), Q40_F h = floor(S)
// in place of the bytes, Q40_D each row's four dot products (H . A, S . B per word) into
// M<m> (5: rows 0-3, 6: rows 4-7). The VFPU line rewriter takes literal registers only:
// one literal line per case.
.macro Q40_C rp, wp
.if \rp == 0 && \wp == 0
    vc2i.s  C300, S100
    vc2i.s  C320, S101
    vc2i.s  C400, S110
    vc2i.s  C420, S111
.elseif \rp == 0 && \wp == 1
    vc2i.s  C300, S102
    vc2i.s  C320, S103
    vc2i.s  C400, S112
    vc2i.s  C420, S113
.elseif \rp == 1 && \wp == 0
    vc2i.s  C300, S120
    vc2i.s  C320, S121
    vc2i.s  C400, S130
    vc2i.s  C420, S131
.elseif \rp == 1 && \wp == 1
    vc2i.s  C300, S122
    vc2i.s  C320, S123
    vc2i.s  C400, S132
    vc2i.s  C420, S133
.endif
    vi2f.q  C310, C300, 28
    vi2f.q  C330, C320, 28
    vi2f.q  C410, C400, 28
    vi2f.q  C430, C420, 28
.endm

.macro Q40_F
    vf2id.q C300, C310, 0
    vf2id.q C320, C330, 0
    vf2id.q C400, C410, 0
    vf2id.q C420, C430, 0
    vi2f.q  C300, C300, 0
    vi2f.q  C320, C320, 0
    vi2f.q  C400, C400, 0
    vi2f.q  C420, C420, 0
.endm

.macro Q40_D m, rp
.if \m == 5 && \rp == 0
    vdot.q  S500, C300, C000
    vdot.q  S510, C310, C010
    vdot.q  S520, C320, C020
    vdot.q  S530, C330, C030
    vdot.q  S501, C400, C000
    vdot.q  S511, C410, C010
    vdot.q  S521, C420, C020
    vdot.q  S531, C430, C030
.elseif \m == 5 && \rp == 1
    vdot.q  S502, C300, C000
    vdot.q  S512, C310, C010
    vdot.q  S522, C320, C020
    vdot.q  S532, C330, C030
    vdot.q  S503, C400, C000
    vdot.q  S513, C410, C010
    vdot.q  S523, C420, C020
    vdot.q  S533, C430, C030
.elseif \m == 6 && \rp == 0
    vdot.q  S600, C300, C000
    vdot.q  S610, C310, C010
    vdot.q  S620, C320, C020
    vdot.q  S630, C330, C030
    vdot.q  S601, C400, C000
    vdot.q  S611, C410, C010
    vdot.q  S621, C420, C020
    vdot.q  S631, C430, C030
.elseif \m == 6 && \rp == 1
    vdot.q  S602, C300, C000
    vdot.q  S612, C310, C010
    vdot.q  S622, C320, C020
    vdot.q  S632, C330, C030
    vdot.q  S603, C400, C000
    vdot.q  S613, C410, C010
    vdot.q  S623, C420, C020
    vdot.q  S633, C430, C030
.endif
.endm

// One chunk of a group of eight rows (b 0: bytes 0-7 of each row, 1: bytes 8-15). Chunk
// A also finishes the previous group's rows (the isum of rows 0-3 is in C720, the dots of
// rows 4-7's chunk B in M6) and, at a block's first group (first), stores the previous
// block's eight outputs; chunk B converts the group's scales, keeps rows 4-7's chunk A
// sum and adds up rows 0-3's isum.
.macro Q40_CHUNK8 b, first
    lv.q    C100, 0($t0)        // rows 0-3 (both chunks read the same 16 bytes a row)
    lv.q    C110, 16($t0)
    lv.q    C120, 32($t0)
    lv.q    C130, 48($t0)
.if \b
    lv.q    C000, 64($t4)       // chunk B: A8-15, B8-15 as A, B, A, B quads
    lv.q    C010, 96($t4)
    lv.q    C020, 80($t4)
    lv.q    C030, 112($t4)
    lv.q    C230, 128($t0)      // this group's fp16 scales
    lv.q    C220, 0($t7)        // and its C
.else
    lv.q    C000, 0($t4)        // chunk A: A0-7, B0-7
    lv.q    C010, 32($t4)
    lv.q    C020, 16($t4)
    lv.q    C030, 48($t4)
.endif
    vadd.q  C600, C600, C610    // rows 4-7 of the previous chunk: sum tree
    vadd.q  C620, C620, C630
    Q40_C   0, \b
.if \b
    vadd.q  C730, C600, C620    //   rows 4-7: this group's chunk A sum, kept
.else
    vadd.q  C600, C600, C620
    vsub.q  C720, C720, C220    //   rows 0-3 of the previous group: - C
.endif
    Q40_F
.if \b
    vh2f.p  C200, C230          // rows 0-3's scales
.else
    vadd.q  C730, C730, C600    //   rows 4-7: isum = chunk A's + chunk B's
    vmul.q  C720, C720, C200    //   rows 0-3: * w_scale
.endif
    Q40_D   5, 0
    lv.q    C100, 64($t0)       // rows 4-5
    lv.q    C110, 80($t0)
    Q40_C   1, \b
.if \b
    vh2f.p  C210, C232          // rows 4-7's
.else
    vsub.q  C730, C730, C220    //   - C
    vscl.q  C720, C720, S233    //   rows 0-3: * x_scale
.endif
    Q40_F
.if \b
    lv.s    S233, 0($t5)        // x's scale (the halves are read)
.else
    vmul.q  C730, C730, C210    //   * w_scale
    vadd.q  C700, C700, C720    //   rows 0-3: val += ...
.endif
    Q40_D   5, 1
    lv.q    C120, 96($t0)       // rows 6-7
    lv.q    C130, 112($t0)
.if \b == 0
    vscl.q  C730, C730, S233    //   * x_scale
.endif
    Q40_C   0, \b
.if \b == 0
    vadd.q  C710, C710, C730    //   val += ...
.endif
    Q40_F
    vadd.q  C500, C500, C510    // rows 0-3 of this chunk: sum tree
    Q40_D   6, 0
    vadd.q  C520, C520, C530
.if \first
    sv.s    S700, 0($v0)        // the previous block is complete: its eight outputs
    sv.s    S701, 4($v0)
    sv.s    S702, 8($v0)
    sv.s    S703, 12($v0)
    sv.s    S710, 16($v0)
    sv.s    S711, 20($v0)
    sv.s    S712, 24($v0)
    sv.s    S713, 28($v0)
    move    $v0, $at
    addiu   $at, $at, 32
    vzero.q C700
    vzero.q C710
.endif
    Q40_C   1, \b
.if \b
    vadd.q  C500, C500, C520
.else
    vadd.q  C720, C500, C520    //   chunk A's sum, kept
.endif
    Q40_F
.if \b
    vadd.q  C720, C720, C500    //   isum = chunk A's + chunk B's
.endif
    Q40_D   6, 1
.endm


    .globl vfpu_q40_block32
    .ent vfpu_q40_block32
vfpu_q40_block32:
    lw      $t0, A_W($a0)
    lw      $at, A_OUT($a0)
    lw      $v1, A_ROWS($a0)
    lw      $a2, A_X($a0)
    lw      $t6, A_XS($a0)
    lw      $t8, A_WS($a0)      // the C quads
    lw      $a3, A_GROUPS($a0)
    addiu   $v0, $a0, A_SCRATCH // the first block has no previous block to store
    vzero.q C730
    srl     $v1, $v1, 3
    sll     $a3, $a3, 7
    addu    $a3, $a3, $a2       // the end of A/B: the loop's test
    beqz    $v1, 97f
    move    $t4, $a2            // (delay slot)
18: // a block of eight rows
    move    $t5, $t6
    move    $t7, $t8
    Q40_CHUNK8 0, 1
    Q40_CHUNK8 1, 0
    addiu   $t4, $t4, 128
    addiu   $t5, $t5, 4
    addiu   $t7, $t7, 16
    beq     $t4, $a3, 38f
    addiu   $t0, $t0, Q40_RECORD8   // (delay slot)
28: // the other groups of the block
    Q40_CHUNK8 0, 0
    Q40_CHUNK8 1, 0
    addiu   $t4, $t4, 128
    addiu   $t5, $t5, 4
    addiu   $t7, $t7, 16
    bne     $t4, $a3, 28b
    addiu   $t0, $t0, Q40_RECORD8   // (delay slot)
38:
    addiu   $v1, $v1, -1
    bnez    $v1, 18b
    move    $t4, $a2            // (delay slot)
    // the last group's rows, then the last block's outputs
    vadd.q  C600, C600, C610
    vadd.q  C620, C620, C630
    vsub.q  C720, C720, C220
    vmul.q  C720, C720, C200
    vscl.q  C720, C720, S233
    vadd.q  C700, C700, C720
    vadd.q  C600, C600, C620
    vadd.q  C730, C730, C600
    vsub.q  C730, C730, C220
    vmul.q  C730, C730, C210
    vscl.q  C730, C730, S233
    vadd.q  C710, C710, C730
    sv.s    S700, 0($v0)
    sv.s    S701, 4($v0)
    sv.s    S702, 8($v0)
    sv.s    S703, 12($v0)
    sv.s    S710, 16($v0)
    sv.s    S711, 20($v0)
    sv.s    S712, 24($v0)
    sv.s    S713, 28($v0)
97:
    jr      $ra
    nop
    .end vfpu_q40_block32

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
// Activation quantization, as quantize_act (kernels.c) computes it: per group,
// scale = max|x| / 127 and q = roundf(x / scale) (0 for an all-zero group), written as
// int8 (q) and as floats (qf, for the matmul kernels). Group size and length multiples
// of 16; x, q, qf 16-byte aligned. The divisions are vdiv (correctly rounded, as the
// FPU's), roundf is floor(|t|) + (frac >= 0.5) with t's sign: the same values as the C
// for every input the VFPU does not flush (it reads denormals as zero).
// Argument block (QuantArgs in kernels_vfpu.c):
#define Q_X      0      // const float*
#define Q_Q      4      // int8_t*
#define Q_QF     8      // float*
#define Q_S      12     // float*: one scale per group
#define Q_GROUPS 16     // groups
#define Q_SPANS  20     // 16-value spans per group
#define Q_CONST  32     // float[4]: 0.5, 127, FLT_MIN, 1 (16-byte aligned)
    .globl vfpu_quantize
    .ent vfpu_quantize
vfpu_quantize:
    lw      $t0, Q_X($a0)
    lw      $t1, Q_Q($a0)
    lw      $t2, Q_QF($a0)
    lw      $t3, Q_S($a0)
    lw      $t4, Q_GROUPS($a0)
    lw      $t5, Q_SPANS($a0)
    lv.q    C700, 32($a0)       // Q_CONST
    beqz    $t4, 95f
    nop
    vone.q  C720
    vscl.q  C710, C720, S700    // (0.5, 0.5, 0.5, 0.5)
15: // a group: its largest magnitude
    move    $t7, $t0
    move    $t6, $t5
    vzero.q C500
25:
    lv.q    C000, 0($t0)
    lv.q    C010, 16($t0)
    lv.q    C020, 32($t0)
    lv.q    C030, 48($t0)
    vabs.q  C000, C000
    vabs.q  C010, C010
    vabs.q  C020, C020
    vabs.q  C030, C030
    vmax.q  C000, C000, C010
    vmax.q  C020, C020, C030
    addiu   $t6, $t6, -1
    addiu   $t0, $t0, 64
    vmax.q  C000, C000, C020
    bnez    $t6, 25b
    vmax.q  C500, C500, C000    // (delay slot)
    vmax.p  C500, C500, C502
    vmax.s  S500, S500, S501
    vdiv.s  S510, S500, S701    // scale = max / 127
    move    $t6, $t5
    addiu   $t3, $t3, 4
    vmax.s  S511, S510, S702    // the divisor: an all-zero group divides by FLT_MIN (q = 0)
    sv.s    S510, -4($t3)
    vscl.q  C520, C720, S511
35: // 16 values: q = roundf(x / scale)
    lv.q    C000, 0($t7)
    lv.q    C010, 16($t7)
    lv.q    C020, 32($t7)
    lv.q    C030, 48($t7)
    vdiv.q  C000, C000, C520    // t
    vdiv.q  C010, C010, C520
    vdiv.q  C020, C020, C520
    vdiv.q  C030, C030, C520
    vabs.q  C100, C000          // |t|
    vabs.q  C110, C010
    vabs.q  C120, C020
    vabs.q  C130, C030
    vf2id.q C200, C100, 0       // floor(|t|)
    vf2id.q C210, C110, 0
    vf2id.q C220, C120, 0
    vf2id.q C230, C130, 0
    vi2f.q  C200, C200, 0
    vi2f.q  C210, C210, 0
    vi2f.q  C220, C220, 0
    vi2f.q  C230, C230, 0
    vsub.q  C100, C100, C200    // its fraction (exact)
    vsub.q  C110, C110, C210
    vsub.q  C120, C120, C220
    vsub.q  C130, C130, C230
    vsge.q  C100, C100, C710    // halves round away from zero
    vsge.q  C110, C110, C710
    vsge.q  C120, C120, C710
    vsge.q  C130, C130, C710
    vadd.q  C200, C200, C100    // |q|
    vadd.q  C210, C210, C110
    vadd.q  C220, C220, C120
    vadd.q  C230, C230, C130
    vsgn.q  C100, C000
    vsgn.q  C110, C010
    vsgn.q  C120, C020
    vsgn.q  C130, C030
    vmul.q  C200, C200, C100    // q
    vmul.q  C210, C210, C110
    vmul.q  C220, C220, C120
    vmul.q  C230, C230, C130
    vf2iz.q C300, C200, 24      // q << 24 (-0 becomes 0)
    vf2iz.q C310, C210, 24
    vf2iz.q C320, C220, 24
    vf2iz.q C330, C230, 24
    vi2f.q  C400, C300, 24      // qf
    vi2f.q  C410, C310, 24
    vi2f.q  C420, C320, 24
    vi2f.q  C430, C330, 24
    vi2c.q  S600, C300          // q as bytes
    vi2c.q  S601, C310
    vi2c.q  S602, C320
    vi2c.q  S603, C330
    sv.q    C400, 0($t2)
    sv.q    C410, 16($t2)
    sv.q    C420, 32($t2)
    sv.q    C430, 48($t2)
    sv.q    C600, 0($t1)
    addiu   $t7, $t7, 64
    addiu   $t2, $t2, 64
    addiu   $t6, $t6, -1
    bnez    $t6, 35b
    addiu   $t1, $t1, 16        // (delay slot)
    addiu   $t4, $t4, -1
    bnez    $t4, 15b
    nop
95:
    jr      $ra
    nop
    .end vfpu_quantize

// ---------------------------------------------------------------------------------
// Argmax helper: const float *vfpu_argmax_chunk(const float *p, int chunks) returns the
// first 64-value chunk of p (16-byte aligned) holding a value above every value before
// it; the first occurrence of the largest value is in that chunk (kernels_vfpu.c scans
// it and the tail as the C argmax does). Per chunk: 16 quad loads, a 15-op vmax tree,
// one compare against the best so far (C700, broadcast) and a rarely taken branch.
    .globl vfpu_argmax_chunk
    .ent vfpu_argmax_chunk
vfpu_argmax_chunk:
    move    $v0, $a0            // chunk 0 holds p[0], the C loop's starting best
    vone.q  C710
    lv.s    S700, 0($a0)
    vscl.q  C700, C710, S700    // (p[0], p[0], p[0], p[0])
    blez    $a1, 96f
    nop
16:
    lv.q    C000, 0($a0)
    lv.q    C010, 16($a0)
    lv.q    C020, 32($a0)
    lv.q    C030, 48($a0)
    lv.q    C100, 64($a0)
    lv.q    C110, 80($a0)
    lv.q    C120, 96($a0)
    lv.q    C130, 112($a0)
    vmax.q  C000, C000, C010
    vmax.q  C020, C020, C030
    lv.q    C200, 128($a0)
    lv.q    C210, 144($a0)
    lv.q    C220, 160($a0)
    lv.q    C230, 176($a0)
    vmax.q  C100, C100, C110
    vmax.q  C120, C120, C130
    lv.q    C300, 192($a0)
    lv.q    C310, 208($a0)
    lv.q    C320, 224($a0)
    lv.q    C330, 240($a0)
    vmax.q  C200, C200, C210
    vmax.q  C220, C220, C230
    vmax.q  C300, C300, C310
    vmax.q  C320, C320, C330
    vmax.q  C000, C000, C020
    vmax.q  C100, C100, C120
    vmax.q  C200, C200, C220
    vmax.q  C300, C300, C320
    addiu   $a1, $a1, -1
    vmax.q  C000, C000, C100
    vmax.q  C200, C200, C300
    addiu   $a0, $a0, 256
    vmax.q  C000, C000, C200
    vcmp.q  GT, C000, C700      // above the best so far?
    bvt     4, 46f              // CC[4]: in any lane
    nop
26:
    bnez    $a1, 16b
    nop
96:
    jr      $ra
    nop
46: // a new best: this chunk, and its largest value broadcast
    vmax.p  C000, C000, C002
    vmax.s  S000, S000, S001
    addiu   $v0, $a0, -256
    vscl.q  C700, C710, S000
    b       26b
    nop
    .end vfpu_argmax_chunk

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

// ---------------------------------------------------------------------------------
// SwiGLU, as forward.c's C computes it with the SDK libm's expf (psp/sdk/libm/mathf.c):
// hb[i] = (hb[i] * (1 / (1 + expf(-hb[i])))) * hb2[i], four values per step, the same
// float operations in the same order, two quads per step: expf's k = (int)(x * log2e +- 0.5), its two-part
// ln 2 reduction, its degree-5 Horner polynomial, e = 1 + (r + r*r*p), times 2^k (made
// as the bits (k + 127) << 23 by vf2iz ..., 23), then the add, the correctly rounded
// vdiv and the two products. The VFPU rounds as the FPU does but has no denormals, so a
// quad is stored only when every |hb| <= 80 (expf and the quotient stay normal) and every
// result is normal and finite; the first quad that is not stops the loop, and the C
// takes it. int vfpu_swiglu(SwigluArgs *a) returns the quads done.
// Argument block (SwigluArgs in kernels_vfpu.c):
#define W_HB     0      // float*: hb, in and out
#define W_HB2    4      // const float*
#define W_QUADS  8      // quads of values
#define W_CONST  16     // float[16]: log2e, 0.5, ln2_hi, ln2_lo; q5..q2; q1, q0, 1, 127;
                        //   80, FLT_MIN, FLT_MAX, 0 (16-byte aligned)
// VFPU: C000 hb, C010 x = -hb, C020 k, C030 r, C200 p, C210 working, C220 hb2;
// broadcasts C500 q4, C510 q3, C520 q2, C530 q1, C600 q0, C610 1, C620 127, C400 80,
// C410 FLT_MIN, C420 FLT_MAX; scalars S700 log2e, S701 0.5, S702 ln2_hi, S703 ln2_lo,
// S710 q5.
    .globl vfpu_swiglu
    .ent vfpu_swiglu
vfpu_swiglu:
    lw      $t0, W_HB($a0)
    lw      $t1, W_HB2($a0)
    lw      $t2, W_QUADS($a0)
    lv.q    C700, 16($a0)       // W_CONST
    lv.q    C710, 32($a0)
    lv.q    C720, 48($a0)
    lv.q    C730, 64($a0)
    vone.q  C430
    vscl.q  C500, C430, S711    // the constants the adds and compares need, as quads
    vscl.q  C510, C430, S712
    vscl.q  C520, C430, S713
    vscl.q  C530, C430, S720
    vscl.q  C600, C430, S721
    vscl.q  C610, C430, S722
    vscl.q  C620, C430, S723
    vscl.q  C400, C430, S730
    vscl.q  C410, C430, S731
    vscl.q  C420, C430, S732
    srl     $t2, $t2, 1
    sll     $t2, $t2, 1         // whole pairs of quads (an odd last one is the C's)
    beqz    $t2, 98f
    move    $v0, $zero          // (delay slot)
18: // two quads, interleaved (M0/M2 and M1/M3) to cover each other's latencies
    lv.q    C000, 0($t0)        // hb
    lv.q    C100, 16($t0)
    lv.q    C220, 0($t1)        // hb2
    lv.q    C320, 16($t1)
    vneg.q  C010, C000          // x = -hb
    vneg.q  C110, C100
    vscl.q  C020, C010, S700    // kf = x * log2e
    vscl.q  C120, C110, S700
    vsgn.q  C210, C020
    vsgn.q  C310, C120
    vscl.q  C210, C210, S701
    vscl.q  C310, C310, S701
    vadd.q  C020, C020, C210    // kf - 0.5 or kf + 0.5 by its sign (kf = 0: k is 0 either way)
    vadd.q  C120, C120, C310
    vf2iz.q C020, C020, 0       // k = (int)kf
    vf2iz.q C120, C120, 0
    vi2f.q  C020, C020, 0
    vi2f.q  C120, C120, 0
    vscl.q  C210, C020, S702
    vscl.q  C310, C120, S702
    vsub.q  C030, C010, C210    // r = (x - k * ln2_hi) - k * ln2_lo
    vsub.q  C130, C110, C310
    vscl.q  C210, C020, S703
    vscl.q  C310, C120, S703
    vsub.q  C030, C030, C210
    vsub.q  C130, C130, C310
    vscl.q  C200, C030, S710    // p = q0 + r * (q1 + r * (q2 + r * (q3 + r * (q4 + r * q5))))
    vscl.q  C300, C130, S710
    vadd.q  C200, C200, C500
    vadd.q  C300, C300, C500
    vmul.q  C200, C200, C030
    vmul.q  C300, C300, C130
    vadd.q  C200, C200, C510
    vadd.q  C300, C300, C510
    vmul.q  C200, C200, C030
    vmul.q  C300, C300, C130
    vadd.q  C200, C200, C520
    vadd.q  C300, C300, C520
    vmul.q  C200, C200, C030
    vmul.q  C300, C300, C130
    vadd.q  C200, C200, C530
    vadd.q  C300, C300, C530
    vmul.q  C200, C200, C030
    vmul.q  C300, C300, C130
    vadd.q  C200, C200, C600
    vadd.q  C300, C300, C600
    vmul.q  C210, C030, C030    // 1 + (r + r * r * p)
    vmul.q  C310, C130, C130
    vmul.q  C210, C210, C200
    vmul.q  C310, C310, C300
    vadd.q  C210, C030, C210
    vadd.q  C310, C130, C310
    vadd.q  C210, C210, C610
    vadd.q  C310, C310, C610
    vadd.q  C020, C020, C620    // 2^k: the bits (k + 127) << 23
    vadd.q  C120, C120, C620
    vf2iz.q C020, C020, 23
    vf2iz.q C120, C120, 23
    vmul.q  C210, C210, C020    // expf(-hb)
    vmul.q  C310, C310, C120
    vadd.q  C210, C210, C610    // 1 + expf(-hb)
    vadd.q  C310, C310, C610
    vdiv.q  C030, C610, C210    // 1 / (...)
    vdiv.q  C130, C610, C310
    vmul.q  C030, C000, C030    // hb * (...)
    vmul.q  C130, C100, C130
    vmul.q  C030, C030, C220    // * hb2
    vmul.q  C130, C130, C320
    vabs.q  C010, C000
    vcmp.q  LE, C010, C400      // every |hb| <= 80?
    bvf     5, 98f
    vabs.q  C210, C030          // (delay slot)
    vcmp.q  GE, C210, C410      // every result normal (a flushed one reads as 0)?
    bvf     5, 98f
    nop
    vcmp.q  LE, C210, C420      // and finite (NaN compares false)?
    bvf     5, 98f
    nop
    sv.q    C030, 0($t0)
    addiu   $v0, $v0, 1
    vabs.q  C110, C100          // the second quad likewise
    vcmp.q  LE, C110, C400
    bvf     5, 98f
    vabs.q  C310, C130          // (delay slot)
    vcmp.q  GE, C310, C410
    bvf     5, 98f
    nop
    vcmp.q  LE, C310, C420
    bvf     5, 98f
    nop
    sv.q    C130, 16($t0)
    addiu   $v0, $v0, 1
    addiu   $t0, $t0, 32
    bne     $v0, $t2, 18b
    addiu   $t1, $t1, 32        // (delay slot)
98:
    jr      $ra
    nop
    .end vfpu_swiglu
