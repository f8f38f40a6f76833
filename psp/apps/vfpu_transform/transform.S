/* void transform(const float *m, const float *in, float *out, int n): out[i] = M in[i]
   for n 4-vectors (16-byte aligned), M the 4x4 matrix at m, column-major as the GE keeps it. */
    .set noreorder
    .text
    .globl transform
    .type transform, @function
transform:
    lv.q    C000, 0($a0)         # the matrix, one column per register
    lv.q    C010, 16($a0)
    lv.q    C020, 32($a0)
    lv.q    C030, 48($a0)
    blez    $a3, 2f
    nop
1:  lv.q    C100, 0($a1)         # in[i]
    addiu   $a3, $a3, -1
    addiu   $a1, $a1, 16
    vtfm4.q C110, E000, C100     # the rows of M (the transpose of M000) dotted with in[i]
    addiu   $a2, $a2, 16
    bgtz    $a3, 1b
    sv.q    C110, -16($a2)       # delay slot: out[i]
2:  jr      $ra
    nop
    .size transform, .-transform
