/* void vfpu_dot4(const float *a, const float *b, float *out): *out = dot product of two 16-byte aligned
   float[4] with the VFPU (lv.q, vdot.q, sv.s); the VFPU lines become .word directives
   through vfpu.asm before zig assembles the file. */
    .set noreorder
    .text
    .globl vfpu_dot4
    .type vfpu_dot4, @function
vfpu_dot4:
    lv.q    C000, 0($a0)
    lv.q    C010, 0($a1)
    vdot.q  S020, C000, C010
    sv.s    S020, 0($a2)
    jr      $ra
    nop
    .size vfpu_dot4, .-vfpu_dot4
