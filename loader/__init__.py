"""Files in, Image out: PBP, SFO, ELF and PRX readers (and the PBP/SFO writers)."""
