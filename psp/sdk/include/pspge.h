/* The GE driver's interface (sceGe_user): the structures its calls take and the values
   they use. The functions themselves are declared from imports.txt (pspimports.h),
   with void * where they take one of these structures. Names and layouts are the
   official SDK's, so programs written for it build unchanged. */
#ifndef PSPGE_H
#define PSPGE_H

#include "pspsdk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What sceGeSaveContext stores and a list's context restores: 512 words. */
typedef struct PspGeContext {
    unsigned int context[512];
} PspGeContext;

/* One level of the driver's CALL stack (sceGeGetStack). */
typedef struct PspGeStack {
    unsigned int stack[8];
} PspGeStack;
typedef PspGeStack SceGeStack;

/* Signal and finish handlers (sceGeSetCallback): called with the SIGNAL/FINISH
   command's 16-bit argument and the matching *_arg. */
typedef void (*PspGeCallback)(int id, void *arg);

typedef struct PspGeCallbackData {
    PspGeCallback signal_func;
    void *signal_arg;
    PspGeCallback finish_func;
    void *finish_arg;
} PspGeCallbackData;

/* Optional fourth argument of sceGeListEnQueue(Head). */
typedef struct PspGeListArgs {
    unsigned int size;         /* sizeof(PspGeListArgs) = 16 */
    PspGeContext *context;     /* saved before the list runs, restored after */
    unsigned int numStacks;
    SceGeStack *stacks;
} PspGeListArgs;

typedef struct PspGeBreakParam {
    unsigned int buf[4];
} PspGeBreakParam;

/* sceGeGetMtx: which matrix. */
typedef enum PspGeMatrixTypes {
    PSP_GE_MATRIX_BONE0 = 0, PSP_GE_MATRIX_BONE1, PSP_GE_MATRIX_BONE2, PSP_GE_MATRIX_BONE3,
    PSP_GE_MATRIX_BONE4, PSP_GE_MATRIX_BONE5, PSP_GE_MATRIX_BONE6, PSP_GE_MATRIX_BONE7,
    PSP_GE_MATRIX_WORLD, PSP_GE_MATRIX_VIEW, PSP_GE_MATRIX_PROJECTION, PSP_GE_MATRIX_TEXGEN
} PspGeMatrixTypes;

/* sceGeListSync / sceGeDrawSync: what they report (syncType 1 = don't wait). */
typedef enum PspGeListState {
    PSP_GE_LIST_DONE = 0,
    PSP_GE_LIST_QUEUED,
    PSP_GE_LIST_DRAWING_DONE,
    PSP_GE_LIST_STALL_REACHED,
    PSP_GE_LIST_CANCEL_DONE
} PspGeListState;

#ifdef __cplusplus
}
#endif

#endif
