/* As in the official SDK: the OS functions and names of pspuser.h. */
#include "pspuser.h"
