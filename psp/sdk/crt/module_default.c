/* Module info for a program that declares none with PSP_MODULE_INFO: the build adds
   this object only then, with MODULE_NAME set to the program's title. */
#include "pspsdk.h"

#ifndef MODULE_NAME
#define MODULE_NAME "allegrex"
#endif

PSP_MODULE_INFO(MODULE_NAME, PSP_MODULE_USER, 1, 0);
