"""A news home page with a login form, a GET search form and a POST advanced search."""

PAGE = "http://news.example/home"

HOME = """<html><body>
<form action="/account/login" method="post"><input name="u"><input name="p" type="password"></form>
<form action="/search?old=1" method="get" role="search">
  <input type="hidden" name="lang" value="en">
  <label for="q">Search</label><input id="q" name="q">
  <select name="section"><option value="all" selected>All</option><option value="w">World</option></select>
  <select name="sort"><option value="rel">Relevance</option><option value="new">Newest</option></select>
  <button>Search</button>
</form>
<form action="/search/advanced" method="post"><input name="w" placeholder="All of these words">
  <select name="sec"><option value="any">Any</option></select><input type="submit" value="Find"></form>
</body></html>"""
