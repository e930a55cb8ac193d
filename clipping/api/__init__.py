"""The REST API of a person's own things: keyword lists, clips, deliveries and channels."""

from __future__ import annotations

from ninja import Router

from clipping.api.channels import router as channels_router
from clipping.api.clips import router as clips_router
from clipping.api.lists import router as lists_router

router = Router()
router.add_router("", lists_router)
router.add_router("", clips_router)
router.add_router("", channels_router)
