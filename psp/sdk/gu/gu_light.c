/* GU lighting: the material colours, the global ambient light and four lights. */
#include "gu_internal.h"

/* Which material colours follow the vertex colour (GU_AMBIENT|GU_DIFFUSE|GU_SPECULAR). */
void sceGuColorMaterial(int components)
{
    gu_cmd(GE_MATERIALUPDATE, components);
}

void sceGuMaterial(int mode, int color)
{
    if (mode & GU_AMBIENT) {   /* the alpha shifted as a signed int, as the official library sends it */
        gu_cmd(GE_MATERIALAMBIENT, (u32)color);
        gu_cmd(GE_MATERIALALPHA, (u32)(color >> 24));
    }
    if (mode & GU_DIFFUSE)
        gu_cmd(GE_MATERIALDIFFUSE, (u32)color);
    if (mode & GU_SPECULAR)
        gu_cmd(GE_MATERIALSPECULAR, (u32)color);
}

/* The colour of unlit drawing without vertex colours, and every material colour. */
void sceGuColor(unsigned int color)
{
    sceGuMaterial(GU_AMBIENT | GU_DIFFUSE | GU_SPECULAR, (int)color);
}

void sceGuModelColor(unsigned int emissive, unsigned int ambient, unsigned int diffuse, unsigned int specular)
{
    gu_cmd(GE_MATERIALEMISSIVE, emissive);
    gu_cmd(GE_MATERIALDIFFUSE, diffuse);
    gu_cmd(GE_MATERIALAMBIENT, ambient);
    gu_cmd(GE_MATERIALSPECULAR, specular);
}

/* The material's ambient colour and alpha. */
void sceGuAmbientColor(unsigned int color)
{
    gu_cmd(GE_MATERIALAMBIENT, color);
    gu_cmd(GE_MATERIALALPHA, color >> 24);
}

/* The scene's ambient light. */
void sceGuAmbient(unsigned int color)
{
    gu_cmd(GE_AMBIENTCOLOR, color);
    gu_cmd(GE_AMBIENTALPHA, color >> 24);
}

void sceGuSpecular(float power)
{
    gu_cmdf(GE_MATERIALSPECULARCOEF, power);
}

/* Light n's kind (GU_DIRECTIONAL, GU_POINTLIGHT, GU_SPOTLIGHT), which of its terms
   count (GU_DIFFUSE_AND_SPECULAR, GU_POWERED_DIFFUSE, else diffuse only) and its
   position (a direction for directional lights). */
void sceGuLight(int light, int type, int components, const ScePspFVector3 *position)
{
    int terms = components == GU_POWERED_DIFFUSE ? 2 : components == GU_DIFFUSE_AND_SPECULAR ? 1 : 0;
    gu_cmdf(GE_LX0 + 3 * light, position->x);
    gu_cmdf(GE_LX0 + 3 * light + 1, position->y);
    gu_cmdf(GE_LX0 + 3 * light + 2, position->z);
    gu_cmd(GE_LIGHTTYPE0 + light, ((type & 3) << 8) | terms);
}

/* Attenuation 1 / (atten0 + atten1 d + atten2 d^2) of point and spot lights. */
void sceGuLightAtt(int light, float atten0, float atten1, float atten2)
{
    gu_cmdf(GE_LKA0 + 3 * light, atten0);
    gu_cmdf(GE_LKA0 + 3 * light + 1, atten1);
    gu_cmdf(GE_LKA0 + 3 * light + 2, atten2);
}

void sceGuLightColor(int light, int component, unsigned int color)
{
    int ambient = GE_LAC0 + 3 * light, diffuse = ambient + 1, specular = ambient + 2;
    switch (component) {
    case GU_AMBIENT: gu_cmd(ambient, color); break;
    case GU_DIFFUSE: gu_cmd(diffuse, color); break;
    case GU_SPECULAR: gu_cmd(specular, color); break;
    case GU_AMBIENT_AND_DIFFUSE: gu_cmd(ambient, color); gu_cmd(diffuse, color); break;
    case GU_DIFFUSE_AND_SPECULAR: gu_cmd(diffuse, color); gu_cmd(specular, color); break;
    default: break;
    }
}

/* GU_SINGLE_COLOR or GU_SEPARATE_SPECULAR_COLOR (specular added after texturing). */
void sceGuLightMode(int mode)
{
    gu_cmd(GE_LIGHTMODE, mode);
}

void sceGuLightSpot(int light, const ScePspFVector3 *direction, float exponent, float cutoff)
{
    gu_cmdf(GE_LKS0 + light, exponent);
    gu_cmdf(GE_LKO0 + light, cutoff);
    gu_cmdf(GE_LDX0 + 3 * light, direction->x);
    gu_cmdf(GE_LDX0 + 3 * light + 1, direction->y);
    gu_cmdf(GE_LDX0 + 3 * light + 2, direction->z);
}
