"""JSON Lines that give back exactly what was stored: registered as "exactjsonl".

Django's "jsonl" cuts datetimes and times to milliseconds (DjangoJSONEncoder). Here:

- datetimes, dates and times keep their microseconds and offset (ISO 8601);
- binary fields are base64, durations Django's duration strings, decimals strings (all by
  their field's value_to_string), and the deserializer reads each back with to_python;
- JSON fields, big integers and floats are JSON as they are (Python's json writes every
  integer in full and every float by its shortest exact repr);
- many-to-many fields are left out: their tables (auto-created through models) are dumped
  as tables of their own, with their own ids, so every table is a table in the archive.
"""

from __future__ import annotations

import datetime
import decimal
import json
import uuid
from typing import Any

from django.core.serializers import jsonl


class ExactEncoder(json.JSONEncoder):
    """Encode the values Django's python serializer passes through as they are, in full."""

    def default(self, o: Any) -> Any:
        if isinstance(o, datetime.datetime | datetime.date | datetime.time):
            return o.isoformat()
        if isinstance(o, decimal.Decimal | uuid.UUID):
            return str(o)
        return super().default(o)


class Serializer(jsonl.Serializer):
    """One object per line, every value exact (see the module's docstring)."""

    def _init_options(self) -> None:
        super()._init_options()
        self.json_kwargs["cls"] = ExactEncoder
        self.json_kwargs["separators"] = (",", ":")

    def end_object(self, obj: Any) -> None:
        # json.dumps encodes in C; json.dump, which jsonl uses, in Python, 8 times slower.
        self.stream.write(json.dumps(self.get_dump_object(obj), **self.json_kwargs) + "\n")
        self._current = None

    def handle_m2m_field(self, obj: Any, field: Any) -> None:
        """Leave the relation to its own table (its through model), dumped with its ids."""


Deserializer = jsonl.Deserializer
