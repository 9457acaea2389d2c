/* list.h -- the methods of libflow, in the order the tools list them.  Each
 * X(id) names the descriptor flow_method_<id> of methods/<id>.c; adding a
 * method is that file, its per-pixel header and kernels, and a line here. */
#ifndef FLOW_METHODS_LIST_H
#define FLOW_METHODS_LIST_H

#define FLOW_METHODS(X)                                                                          \
    X(lk)                                                                                        \
    X(hs)                                                                                        \
    X(clg)                                                                                       \
    X(clg_nl)                                                                                    \
    X(robust)                                                                                    \
    X(plk)                                                                                       \
    X(dis)                                                                                       \
    X(tvl1)                                                                                      \
    X(epic)

/* The method the tools use when none is named. */
#define FLOW_METHOD_DEFAULT "robust"

#endif
