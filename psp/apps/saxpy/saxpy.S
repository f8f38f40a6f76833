/* y[i] += a * x[i] for n floats (n a multiple of 8, x and y 16-byte aligned), with the
   VFPU: the kernel of docs/benchmarking.md. o32 ABI: a in $f12, x $a1, y $a2, n $a3.
   saxpy_vfpu does one quad per iteration, each step waiting for the one before;
   saxpy_vfpu2 does two quads per iteration, their steps interleaved. */
    .set noreorder
    .text

    .globl saxpy_vfpu
    .type saxpy_vfpu, @function
saxpy_vfpu:
    mfc1    $t0, $f12
    mtv     $t0, S000                # S000 = a
    blez    $a3, 2f
    nop
1:  lv.q    C100, 0($a1)             # x[i..i+3]
    lv.q    C110, 0($a2)             # y[i..i+3]
    vscl.q  C100, C100, S000         # a * x
    vadd.q  C110, C110, C100         # + y
    sv.q    C110, 0($a2)
    addiu   $a3, $a3, -4
    addiu   $a1, $a1, 16
    bgtz    $a3, 1b
    addiu   $a2, $a2, 16             # delay slot
2:  jr      $ra
    nop
    .size saxpy_vfpu, .-saxpy_vfpu

    .globl saxpy_vfpu2
    .type saxpy_vfpu2, @function
saxpy_vfpu2:
    mfc1    $t0, $f12
    mtv     $t0, S000                # S000 = a
    blez    $a3, 2f
    nop
1:  lv.q    C100, 0($a1)             # x[i..i+3]
    lv.q    C110, 16($a1)            # x[i+4..i+7]
    lv.q    C120, 0($a2)             # y[i..i+3]
    lv.q    C130, 16($a2)            # y[i+4..i+7]
    vscl.q  C100, C100, S000
    vscl.q  C110, C110, S000
    addiu   $a3, $a3, -8
    addiu   $a1, $a1, 32
    vadd.q  C120, C120, C100
    vadd.q  C130, C130, C110
    sv.q    C120, 0($a2)
    sv.q    C130, 16($a2)
    bgtz    $a3, 1b
    addiu   $a2, $a2, 32             # delay slot
2:  jr      $ra
    nop
    .size saxpy_vfpu2, .-saxpy_vfpu2
