"""The PSP's vector unit (VFPU): registers, semantics, assembler and disassembler."""
