    la $a0, v
    li $t0, 7
    li $t1, -3
    mult $t0, $t1
    mfhi $t2
    mflo $t3
    lb $t4, 1($a0)
    sb $t0, 32($a0)
    sh $t1, 34($a0)
    lwc1 $f1, 0($a0)
    lwc1 $f2, 4($a0)
    add.s $f3, $f1, $f2
    c.lt.s $f1, $f2
    bc1t skip
    nop
    nop
skip:
    swc1 $f3, 36($a0)
    mtv $t0, S000
    mfv $t5, S000
    mfvc $t6, VFPU_CC
    mtvc $t0, VFPU_CC
    vmfvc S001, $131
    vmtvc $131, S001
    vcst.s S002, VFPU_PI
    viim.s S003, -8
    vrot.q C010, S002, [c, s, s, s]
    lvl.q C020, 12($a0)
    lvr.q C020, 0($a0)
    svr.q C020, 16($a0)
    vrnds.s S002
    vrndf1.q C030
    vmidt.q M100
    vhtfm4.q C200, M100, C010
    vsync
    vnop
.data
v: .float 1, 2, 3, 4, 5, 6, 7, 8
.space 16
