from django.urls import include, path

from clipping.feeds import ClipFeed, ListFeed
from clipping.views import channels, pages, sites
from clipping.webhooks import tracking_urlpatterns

urlpatterns = [
    path("", pages.home, name="home"),
    path("dashboard/", pages.dashboard, name="dashboard"),
    path("lists/", pages.list_index, name="list_index"),
    path("lists/new/", pages.list_create, name="list_create"),
    path("lists/<int:pk>/", pages.list_detail, name="list_detail"),
    path("lists/<int:pk>/edit/", pages.list_edit, name="list_edit"),
    path("lists/<int:pk>/synonyms/", pages.list_synonyms_save, name="list_synonyms"),
    path("lists/<int:pk>/delete/", pages.list_delete, name="list_delete"),
    path("lists/export.<str:fmt>", pages.lists_export, name="lists_export"),
    path("lists/import/", pages.lists_import, name="lists_import"),
    path("sites/export.opml", pages.sites_export, name="sites_export"),
    path("sites/import/", pages.sites_import, name="sites_import"),
    path("sites/import/follow/", pages.sites_import_follow, name="sites_import_follow"),
    path("account/export.json", pages.account_export, name="account_export"),
    path("clips/", pages.clip_index, name="clip_index"),
    path("clips/read/", pages.clip_mark_all_read, name="clip_mark_all_read"),
    path("clips/<int:pk>/read/", pages.clip_mark_read, name="clip_mark_read"),
    path("feed/<str:token>/", ClipFeed(), name="clip_feed"),
    path("feed/list/<int:pk>/<str:token>/", ListFeed(), name="list_feed"),
    path("unsubscribe/<str:token>/", pages.unsubscribe, name="unsubscribe"),
    path("webhooks/anymail/", include((tracking_urlpatterns(), "anymail"))),
    path("sites/", sites.site_index, name="site_index"),
    path("sites/preview/", sites.site_preview, name="site_preview"),
    path("sites/add/", sites.site_add, name="site_add"),
    path("sites/<int:pk>/", sites.site_detail, name="site_detail"),
    path("sites/<int:pk>/remove/", sites.site_remove, name="site_remove"),
    path("channels/add/", channels.channel_add, name="channel_add"),
    path("channels/routes/", channels.channel_routes, name="channel_routes"),
    path("channels/<int:pk>/test/", channels.channel_test, name="channel_test"),
    path("channels/<int:pk>/resume/", channels.channel_resume, name="channel_resume"),
    path("channels/<int:pk>/delete/", channels.channel_delete, name="channel_delete"),
]
