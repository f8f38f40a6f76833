/* int asm_sum_words(const int *p, int n): sum of n words, in MIPS assembly (o32 ABI). */
    .set noreorder
    .text
    .globl asm_sum_words
    .type asm_sum_words, @function
asm_sum_words:
    blez    $a1, 2f
    move    $v0, $zero
1:  lw      $t0, 0($a0)
    addiu   $a1, $a1, -1
    addu    $v0, $v0, $t0
    bgtz    $a1, 1b
    addiu   $a0, $a0, 4
2:  jr      $ra
    nop
    .size asm_sum_words, .-asm_sum_words
