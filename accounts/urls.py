from django.urls import path

from accounts import views

urlpatterns = [
    path("settings/", views.settings_view, name="account_settings"),
    path("settings/feed-token/", views.rotate_feed_token, name="account_rotate_feed_token"),
    path("delete/", views.delete_account, name="account_delete"),
]
