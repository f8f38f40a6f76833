/* GUM's matrix arithmetic on the VFPU. Every pointer is 16-byte aligned (gum_math.c
   copies to aligned storage when a caller's is not). A matrix is four column vectors,
   loaded into C<m>00..C<m>30 so that M<m> holds it as the GE uses it. vmmul multiplies
   by the transpose of its first source, so Md = Ms * Mt is written vmmul.q Md, Es, Mt
   (vfpu.asm encodes operands as written, where the official toolchain's assembler
   flips that operand itself). The kernels use VFPU matrices 0-3 as scratch. */
    .set noreorder
    .text

/* void gum_vfpu_identity(ScePspFMatrix4 *m) */
    .globl gum_vfpu_identity
    .type gum_vfpu_identity, @function
gum_vfpu_identity:
    vmidt.q M000
    sv.q    C000, 0($a0)
    sv.q    C010, 16($a0)
    sv.q    C020, 32($a0)
    jr      $ra
    sv.q    C030, 48($a0)
    .size gum_vfpu_identity, .-gum_vfpu_identity

/* void gum_vfpu_multiply(ScePspFMatrix4 *r, const ScePspFMatrix4 *a, const ScePspFMatrix4 *b): r = a * b */
    .globl gum_vfpu_multiply
    .type gum_vfpu_multiply, @function
gum_vfpu_multiply:
    lv.q    C000, 0($a1)
    lv.q    C010, 16($a1)
    lv.q    C020, 32($a1)
    lv.q    C030, 48($a1)
    lv.q    C100, 0($a2)
    lv.q    C110, 16($a2)
    lv.q    C120, 32($a2)
    lv.q    C130, 48($a2)
    vmmul.q M200, E000, M100
    sv.q    C200, 0($a0)
    sv.q    C210, 16($a0)
    sv.q    C220, 32($a0)
    jr      $ra
    sv.q    C230, 48($a0)
    .size gum_vfpu_multiply, .-gum_vfpu_multiply

/* void gum_vfpu_rotate_x/y/z(ScePspFMatrix4 *m, const float *angle): m = m * R for a
   rotation about one axis by *angle radians. R (M100) is the identity with two columns
   from vrot, whose angle is in quarter turns (radians * 2/pi), and multiply_into
   multiplies. */
    .globl gum_vfpu_rotate_x
    .type gum_vfpu_rotate_x, @function
gum_vfpu_rotate_x:
    lv.s    S000, 0($a1)
    vcst.s  S001, VFPU_2_PI
    vmul.s  S000, S001, S000
    vmidt.q M100
    vrot.q  C110, S000, [0, c, s, 0]
    b       multiply_into
    vrot.q  C120, S000, [0, -s, c, 0]
    .size gum_vfpu_rotate_x, .-gum_vfpu_rotate_x

    .globl gum_vfpu_rotate_y
    .type gum_vfpu_rotate_y, @function
gum_vfpu_rotate_y:
    lv.s    S000, 0($a1)
    vcst.s  S001, VFPU_2_PI
    vmul.s  S000, S001, S000
    vmidt.q M100
    vrot.q  C100, S000, [c, 0, -s, 0]
    b       multiply_into
    vrot.q  C120, S000, [s, 0, c, 0]
    .size gum_vfpu_rotate_y, .-gum_vfpu_rotate_y

    .globl gum_vfpu_rotate_z
    .type gum_vfpu_rotate_z, @function
gum_vfpu_rotate_z:
    lv.s    S000, 0($a1)
    vcst.s  S001, VFPU_2_PI
    vmul.s  S000, S001, S000
    vmidt.q M100
    vrot.q  C100, S000, [c, s, 0, 0]
    b       multiply_into
    vrot.q  C110, S000, [-s, c, 0, 0]
    .size gum_vfpu_rotate_z, .-gum_vfpu_rotate_z

/* void gum_vfpu_scale(ScePspFMatrix4 *m, const ScePspFVector4 *v): columns x, y, z
   (their first three rows) times v.x, v.y, v.z. */
    .globl gum_vfpu_scale
    .type gum_vfpu_scale, @function
gum_vfpu_scale:
    lv.q    C000, 0($a1)
    lv.q    C100, 0($a0)
    lv.q    C110, 16($a0)
    lv.q    C120, 32($a0)
    vscl.t  C100, C100, S000
    vscl.t  C110, C110, S001
    vscl.t  C120, C120, S002
    sv.q    C100, 0($a0)
    sv.q    C110, 16($a0)
    jr      $ra
    sv.q    C120, 32($a0)
    .size gum_vfpu_scale, .-gum_vfpu_scale

/* void gum_vfpu_translate(ScePspFMatrix4 *m, const ScePspFVector4 *v): m = m * T(v),
   which only changes column w: w += x v.x + y v.y + z v.z. */
    .globl gum_vfpu_translate
    .type gum_vfpu_translate, @function
gum_vfpu_translate:
    lv.q    C000, 0($a1)
    lv.q    C100, 0($a0)
    lv.q    C110, 16($a0)
    lv.q    C120, 32($a0)
    lv.q    C130, 48($a0)
    vscl.q  C010, C100, S000
    vscl.q  C020, C110, S001
    vscl.q  C030, C120, S002
    vadd.q  C130, C130, C010
    vadd.q  C130, C130, C020
    vadd.q  C130, C130, C030
    jr      $ra
    sv.q    C130, 48($a0)
    .size gum_vfpu_translate, .-gum_vfpu_translate

/* void gum_vfpu_fast_inverse(ScePspFMatrix4 *r, const ScePspFMatrix4 *a): the inverse
   of a rotation + translation: the 3x3 part transposed (vmmov from the transposed view
   E200), the translation -t taken through it (vtfm3: dot of each column with -t). */
    .globl gum_vfpu_fast_inverse
    .type gum_vfpu_fast_inverse, @function
gum_vfpu_fast_inverse:
    lv.q    C200, 0($a1)
    lv.q    C210, 16($a1)
    lv.q    C220, 32($a1)
    lv.q    C230, 48($a1)
    vmidt.q M000
    vmmov.t M000, E200
    vneg.t  C100, C230
    vtfm3.t C030, M200, C100
    sv.q    C000, 0($a0)
    sv.q    C010, 16($a0)
    sv.q    C020, 32($a0)
    jr      $ra
    sv.q    C030, 48($a0)
    .size gum_vfpu_fast_inverse, .-gum_vfpu_fast_inverse

/* void gum_vfpu_perspective(ScePspFMatrix4 *m, const ScePspFVector4 *p): m = m * P for
   p = (fovy degrees, aspect, near, far). P has x.x = cot(fovy/2) / aspect, y.y = cot,
   z.z = (far + near) / (near - far), w.z = 2 far near / (near - far), z.w = -1. */
    .globl gum_vfpu_perspective
    .type gum_vfpu_perspective, @function
gum_vfpu_perspective:
    lv.q    C000, 0($a1)            /* S000 fovy, S001 aspect, S002 near, S003 far */
    vmzero.q M100
    viim.s  S010, 180
    vrcp.s  S010, S010
    vmul.s  S011, S000, S010        /* fovy / 180: half of fovy in quarter turns */
    vrot.p  C012, S011, [c, s]      /* S012 cos, S013 sin */
    vdiv.s  S020, S012, S013        /* cotangent */
    vdiv.s  S100, S020, S001
    vmov.s  S111, S020
    vsub.s  S021, S002, S003
    vrcp.s  S021, S021              /* 1 / (near - far) */
    vadd.s  S022, S003, S002
    vmul.s  S122, S022, S021
    vmul.s  S023, S003, S002
    vadd.s  S023, S023, S023
    vmul.s  S132, S023, S021
    vone.s  S123
    vneg.s  S123, S123
    b       multiply_into
    nop
    .size gum_vfpu_perspective, .-gum_vfpu_perspective

/* void gum_vfpu_ortho(ScePspFMatrix4 *m, const ScePspFVector4 p[2]): m = m * O for
   p[0] = (right, top, far, -), p[1] = (left, bottom, near, -): the diagonal 2/dx, 2/dy,
   -2/dz and column w = -(sums) / (differences). */
    .globl gum_vfpu_ortho
    .type gum_vfpu_ortho, @function
gum_vfpu_ortho:
    lv.q    C000, 0($a1)
    lv.q    C010, 16($a1)
    vmidt.q M100
    vsub.t  C020, C000, C010
    vrcp.t  C020, C020              /* 1/dx, 1/dy, 1/dz */
    vfim.s  S030, 2.0
    vmul.s  S100, S030, S020
    vmul.s  S111, S030, S021
    vneg.s  S031, S030
    vmul.s  S122, S031, S022
    vadd.t  C200, C000, C010
    vneg.t  C200, C200
    vmul.t  C130, C200, C020
    /* fall through */
    .size gum_vfpu_ortho, .-gum_vfpu_ortho

/* The tail of the rotations, perspective and ortho: m = m * M100. */
multiply_into:
    lv.q    C200, 0($a0)
    lv.q    C210, 16($a0)
    lv.q    C220, 32($a0)
    lv.q    C230, 48($a0)
    vmmul.q M300, E200, M100
    sv.q    C300, 0($a0)
    sv.q    C310, 16($a0)
    sv.q    C320, 32($a0)
    jr      $ra
    sv.q    C330, 48($a0)
