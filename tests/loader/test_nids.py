from loader.nids import nid_for_name


def test_nid_is_the_first_sha1_word_little_endian():
    # Known NIDs from the public PSP SDK's stub files.
    assert nid_for_name("sceIoOpen") == 0x109F50BC
    assert nid_for_name("sceKernelExitGame") == 0x05572A5F
    assert nid_for_name("sceDisplaySetFrameBuf") == 0x289D82FE


def test_names_of_common_imports_come_from_the_table():
    from loader.nids import name_for_nid
    assert name_for_nid("IoFileMgrForUser", 0x109F50BC) == "sceIoOpen"
    assert name_for_nid("ThreadManForUser", nid_for_name("sceKernelCreateThread")) == "sceKernelCreateThread"
    assert name_for_nid("syslib", 0xD632ACDB) == "module_start"
    assert name_for_nid("IoFileMgrForUser", 0xDEADBEEF) is None
    assert name_for_nid("NoSuchLibrary", 0x109F50BC) is None  # names are per library


def test_the_libraries_naming_a_nid():
    from loader.nids import libraries_naming
    assert libraries_naming(0x42EC03AC) == {"IoFileMgrForUser": "sceIoWrite", "IoFileMgrForKernel": "sceIoWrite"}
    assert libraries_naming(0x11223344) == {}


def test_names_whose_nid_is_not_their_hash_are_stored_as_pairs():
    # sceHprm's NID 0x444ED0B7 is not SHA-1("sceHprmUnregisterCallback"): the SDK lists the pair.
    from loader.nids import name_for_nid
    assert nid_for_name("sceHprmUnregisterCallback") != 0x444ED0B7
    assert name_for_nid("sceHprm", 0x444ED0B7) == "sceHprmUnregisterCallback"


def test_table_lines_are_consistent():
    """A plain line's name hashes to its NID by definition; a line with an explicit NID
    must need it (its name does not hash to it), or the table carries a wrong pair."""
    from loader.nids import NAMES_FILE
    for line in NAMES_FILE.read_text().splitlines():
        fields = line.split()
        if fields and not fields[0].startswith("#") and len(fields) == 3:
            assert nid_for_name(fields[1]) != int(fields[2], 16), line
