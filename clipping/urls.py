from django.urls import include, path

from clipping import views
from clipping.feeds import ClipFeed, ListFeed
from clipping.webhooks import tracking_urlpatterns

urlpatterns = [
    path("", views.home, name="home"),
    path("dashboard/", views.dashboard, name="dashboard"),
    path("lists/", views.list_index, name="list_index"),
    path("lists/new/", views.list_create, name="list_create"),
    path("lists/<int:pk>/", views.list_detail, name="list_detail"),
    path("lists/<int:pk>/edit/", views.list_edit, name="list_edit"),
    path("lists/<int:pk>/synonyms/", views.list_synonyms_save, name="list_synonyms"),
    path("lists/<int:pk>/delete/", views.list_delete, name="list_delete"),
    path("lists/export.<str:fmt>", views.lists_export, name="lists_export"),
    path("lists/import/", views.lists_import, name="lists_import"),
    path("sites/export.opml", views.sites_export, name="sites_export"),
    path("sites/import/", views.sites_import, name="sites_import"),
    path("sites/import/follow/", views.sites_import_follow, name="sites_import_follow"),
    path("account/export.json", views.account_export, name="account_export"),
    path("clips/", views.clip_index, name="clip_index"),
    path("clips/read/", views.clip_mark_all_read, name="clip_mark_all_read"),
    path("clips/<int:pk>/read/", views.clip_mark_read, name="clip_mark_read"),
    path("feed/<str:token>/", ClipFeed(), name="clip_feed"),
    path("feed/list/<int:pk>/<str:token>/", ListFeed(), name="list_feed"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("webhooks/anymail/", include((tracking_urlpatterns(), "anymail"))),
]
