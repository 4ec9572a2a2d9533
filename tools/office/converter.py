"""docmill office converter: one long-lived process per LibreOffice worker.

It connects to the worker's soffice over a UNO pipe, prints one JSON line
{"ready": true} and then reads jobs from stdin, one JSON object per line:
  {"in": "/abs/input.docx", "out": "/abs/output.pdf", "export": "writer_pdf_Export",
   "filter": "" (import filter, optional), "options": "" (import filter options),
   "export_options": "" (export filter options, optional: CSV's separator...),
   "page_range": "" (PDF export only, optional: the pages to export, "1"),
   "max_cells": 0 (spreadsheet export only, optional: see sheet_cells),
   "active_sheet": false (with max_cells: count the active sheet only)}
and answers each with one JSON line:
  {"ok": true} | {"ok": false, "kind": "load"|"store"|"bridge", "msg": "..."}
  | {"ok": false, "kind": "limit", "rows": R, "cols": C}
A "bridge" failure means soffice is gone: the process exits after answering,
and the Go side replaces the whole worker.
"""
import json
import sys
import time

import uno
from com.sun.star.beans import PropertyValue
from com.sun.star.connection import NoConnectException
from com.sun.star.lang import DisposedException

NEVER_EXECUTE = 0  # com.sun.star.document.MacroExecMode.NEVER_EXECUTE
NO_UPDATE = 0      # com.sun.star.document.UpdateDocMode.NO_UPDATE


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def connect(pipe, wait):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext(
        "com.sun.star.bridge.UnoUrlResolver", local)
    url = "uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe
    deadline = time.monotonic() + wait
    while True:
        try:
            ctx = resolver.resolve(url)
            break
        except NoConnectException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    return ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)


def span(sheet):
    """Cells from A1 to the end of the sheet's used area, and its rows
    and columns."""
    cursor = sheet.createCursor()
    cursor.gotoEndOfUsedArea(False)
    end = cursor.getRangeAddress()
    rows, cols = end.EndRow + 1, end.EndColumn + 1
    return rows * cols, rows, cols


def sheet_cells(doc, active):
    """The cells an export of the spreadsheet doc lays out, from A1 to
    the end of each sheet's used area, used or not, and the rows and
    columns of the largest sheet: those of the active sheet only when
    active is true (CSV saves that one, writing a separator for every
    cell), else of all sheets (PDF shows them all). One value in a
    sheet's last cell (XFD1048576) makes 17 billion of them from a
    1.5 KB file."""
    if active:
        try:
            return span(doc.getCurrentController().getActiveSheet())
        except Exception:
            return span(doc.getSheets().getByIndex(0))
    sheets = doc.getSheets()
    total, rows, cols = 0, 0, 0
    for i in range(sheets.getCount()):
        n, r, c = span(sheets.getByIndex(i))
        total += n
        if r * c >= rows * cols:
            rows, cols = r, c
    return total, rows, cols


def convert(desktop, job):
    load = [
        prop("Hidden", True),
        prop("ReadOnly", True),
        prop("MacroExecutionMode", NEVER_EXECUTE),
        prop("UpdateDocMode", NO_UPDATE),
        prop("Silent", True),
    ]
    if job.get("filter"):
        load.append(prop("FilterName", job["filter"]))
    if job.get("options"):
        load.append(prop("FilterOptions", job["options"]))
    try:
        doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(job["in"]), "_blank", 0, tuple(load))
    except (DisposedException, RuntimeError):
        raise
    except Exception as e:  # IllegalArgumentException, IOException, ...
        return {"ok": False, "kind": "load", "msg": "%s: %s" % (type(e).__name__, e)}
    if doc is None:
        return {"ok": False, "kind": "load", "msg": "loadComponentFromURL returned nothing"}
    try:
        if job.get("max_cells"):
            cells, rows, cols = sheet_cells(doc, job.get("active_sheet", False))
            if cells > job["max_cells"]:
                return {"ok": False, "kind": "limit", "rows": rows, "cols": cols}
        store = [prop("FilterName", job["export"])]
        if job.get("export_options"):
            store.append(prop("FilterOptions", job["export_options"]))
        if job.get("page_range"):
            data = uno.Any("[]com.sun.star.beans.PropertyValue", (prop("PageRange", job["page_range"]),))
            store.append(prop("FilterData", data))
        store = tuple(store)
        uno.invoke(doc, "storeToURL", (uno.systemPathToFileUrl(job["out"]), store))
        return {"ok": True}
    except DisposedException:
        raise
    except Exception as e:
        return {"ok": False, "kind": "store", "msg": "%s: %s" % (type(e).__name__, e)}
    finally:
        try:
            doc.close(True)
        except Exception:
            try:
                doc.dispose()
            except Exception:
                pass


def main():
    try:
        desktop = connect(sys.argv[1], float(sys.argv[2]))
    except Exception as e:
        reply({"ok": False, "kind": "bridge", "msg": "connect: %s" % e})
        return 2
    reply({"ready": True})
    for line in sys.stdin:
        try:
            job = json.loads(line)
        except ValueError as e:
            reply({"ok": False, "kind": "store", "msg": "bad job: %s" % e})
            continue
        try:
            reply(convert(desktop, job))
        except Exception as e:  # the bridge is gone: soffice crashed or was killed
            reply({"ok": False, "kind": "bridge", "msg": "%s: %s" % (type(e).__name__, e)})
            return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
