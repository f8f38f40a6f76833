from loader.nids import nid_for_name


def test_nid_is_the_first_sha1_word_little_endian():
    # Known NIDs from the public PSP SDK's stub files.
    assert nid_for_name("sceIoOpen") == 0x109F50BC
    assert nid_for_name("sceKernelExitGame") == 0x05572A5F
    assert nid_for_name("sceDisplaySetFrameBuf") == 0x289D82FE
