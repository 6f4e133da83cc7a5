/* BMI2 + POPCNT: pext gathers rank masks, popcnt counts suits */
#define POKER_BMI2 1
#include "poker_core.c"
