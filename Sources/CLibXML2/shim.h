#ifndef TRELLIS_CLIBXML2_SHIM_H
#define TRELLIS_CLIBXML2_SHIM_H

/* libxml2 (Debian: libxml2-dev), read directly rather than through FoundationXML's
 * XMLParser, which traps or dereferences NULL on some malformed input (names that are
 * not UTF-8, processing instructions without data: see Fuzz/regressions/coredata-model).
 * https://gnome.pages.gitlab.gnome.org/libxml2/devhelp/libxml2-parser.html */
#include <libxml/xmlversion.h>
/* Debian builds libxml2 with ICU; its encoding.h then includes the system's ICU headers,
 * which clash with the copy Foundation bundles. Trellis never touches the encoding
 * handler's ICU fields (only pointers to the handler), so leave them out. */
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

/* `xmlFree` is a global function pointer (settable with xmlMemSetup), which Swift 6
 * rightly treats as shared mutable state; call it from C. */
static inline void trellis_xml_free(void *pointer) {
    xmlFree(pointer);
}

#endif
