// dump_h_test.c compiled as C++: include/skinref/dump.h must build and behave the same in a C++ engine.
#include "dump_h_test.c"
