/* The SDK in one include: PSP types, module declaration macros and the OS functions
   listed in psp/sdk/imports.txt (pspimports.h is generated from that list). */
#ifndef PSPSDK_H
#define PSPSDK_H

#include "psptypes.h"
#include "pspmoduleinfo.h"
#include "pspimports.h"

#endif
