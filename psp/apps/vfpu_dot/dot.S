/* float vfpu_dot(const float *x, const float *y, int n): dot product of two 16-byte
   aligned float arrays, n a multiple of 4, with the VFPU (o32 ABI: result in $f0). */
    .set noreorder
    .text
    .globl vfpu_dot
    .type vfpu_dot, @function
vfpu_dot:
    vzero.s S000                 # running sum
    blez    $a2, 2f
    nop
1:  lv.q    C100, 0($a0)         # x[i..i+3]
    lv.q    C110, 0($a1)         # y[i..i+3]
    addiu   $a2, $a2, -4
    addiu   $a0, $a0, 16
    addiu   $a1, $a1, 16
    vdot.q  S010, C100, C110
    bgtz    $a2, 1b
    vadd.s  S000, S000, S010     # delay slot: accumulate
2:  mfv     $v0, S000
    jr      $ra
    mtc1    $v0, $f0
    .size vfpu_dot, .-vfpu_dot
