#include "app.h"
