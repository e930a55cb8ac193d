from django.urls import include, path

from clipping import views
from clipping.feeds import ClipFeed
from clipping.webhooks import tracking_urlpatterns

urlpatterns = [
    path("", views.home, name="home"),
    path("dashboard/", views.dashboard, name="dashboard"),
    path("lists/", views.list_index, name="list_index"),
    path("lists/new/", views.list_create, name="list_create"),
    path("lists/<int:pk>/", views.list_detail, name="list_detail"),
    path("lists/<int:pk>/edit/", views.list_edit, name="list_edit"),
    path("lists/<int:pk>/delete/", views.list_delete, name="list_delete"),
    path("clips/", views.clip_index, name="clip_index"),
    path("clips/read/", views.clip_mark_all_read, name="clip_mark_all_read"),
    path("clips/<int:pk>/read/", views.clip_mark_read, name="clip_mark_read"),
    path("feed/<str:token>/", ClipFeed(), name="clip_feed"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("webhooks/anymail/", include((tracking_urlpatterns(), "anymail"))),
]
