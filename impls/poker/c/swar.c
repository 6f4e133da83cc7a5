/* scalar SWAR: portable C, no instruction beyond x86-64 baseline */
#include "poker_core.c"
