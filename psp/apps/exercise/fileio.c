/* File I/O round trip through the SDK's stdio on ms0:/: chunked fwrite and fread of
   pseudo-random data, fseek/ftell from every origin, text lines, append, remove. */
#include <stdio.h>
#include <string.h>
#include <pspsdk.h>

PSP_MODULE_INFO("fileio", PSP_MODULE_USER, 1, 0);
PSP_NO_CREATE_MAIN_THREAD();
PSP_HEAP_SIZE_KB(256);

#define SIZE 50000
static unsigned char data[SIZE], back[SIZE];
static int errors;

#define EXPECT(cond)                                              \
    do {                                                          \
        if (!(cond)) {                                            \
            printf("FAILED line %d: %s\n", __LINE__, #cond);      \
            errors++;                                             \
        }                                                         \
    } while (0)

int main(void)
{
    unsigned state = 1;
    for (int i = 0; i < SIZE; i++) {
        state = state * 1664525u + 1013904223u;
        data[i] = (unsigned char)(state >> 24);
    }
    FILE *f = fopen("ms0:/fileio.bin", "wb");
    EXPECT(f != NULL);
    for (int at = 0, chunk = 1; at < SIZE; at += chunk, chunk = chunk * 3 % 9001 + 1) {
        int n = at + chunk > SIZE ? SIZE - at : chunk;
        EXPECT(fwrite(data + at, 1, n, f) == (size_t)n);
    }
    EXPECT(ftell(f) == SIZE);
    EXPECT(fclose(f) == 0);

    f = fopen("ms0:/fileio.bin", "rb");
    EXPECT(f != NULL);
    for (int at = 0, chunk = 7; at < SIZE; at += chunk, chunk = chunk * 5 % 7000 + 1) {
        int n = at + chunk > SIZE ? SIZE - at : chunk;
        EXPECT(fread(back + at, 1, n, f) == (size_t)n);
    }
    EXPECT(memcmp(data, back, SIZE) == 0);
    EXPECT(fread(back, 1, 1, f) == 0 && feof(f));
    EXPECT(fseek(f, 1234, SEEK_SET) == 0 && ftell(f) == 1234 && fgetc(f) == data[1234]);
    EXPECT(fseek(f, 100, SEEK_CUR) == 0 && ftell(f) == 1335 && fgetc(f) == data[1335]);
    EXPECT(fseek(f, -10, SEEK_END) == 0 && ftell(f) == SIZE - 10 && fgetc(f) == data[SIZE - 10]);
    EXPECT(ungetc('x', f) == 'x' && fgetc(f) == 'x' && fgetc(f) == data[SIZE - 9]);
    fclose(f);

    f = fopen("ms0:/lines.txt", "w");
    fprintf(f, "first %d\n", 1);
    fputs("second line\n", f);
    fclose(f);
    f = fopen("ms0:/lines.txt", "a");
    fprintf(f, "third %.2f\n", 3.0);
    fclose(f);
    char line[64];
    f = fopen("ms0:/lines.txt", "r");
    EXPECT(fgets(line, sizeof line, f) && strcmp(line, "first 1\n") == 0);
    EXPECT(fgets(line, sizeof line, f) && strcmp(line, "second line\n") == 0);
    EXPECT(fgets(line, sizeof line, f) && strcmp(line, "third 3.00\n") == 0);
    EXPECT(fgets(line, sizeof line, f) == NULL);
    fclose(f);

    EXPECT(fopen("ms0:/does/not/exist.txt", "r") == NULL);
    EXPECT(remove("ms0:/lines.txt") == 0);
    EXPECT(fopen("ms0:/lines.txt", "r") == NULL);
    printf("fileio %s errors=%d\n", errors ? "FAILED" : "ok", errors);
    return errors;
}
