<?php

function slugify(string $title): string
{
    $slug = strtolower(trim($title));
    $slug = preg_replace('/[^a-z0-9]+/', '-', $slug);
    return trim($slug, '-');
}

$titles = ['Hello World', 'Tiny Code, Big Fix'];
foreach ($titles as $title) {
    echo slugify($title) . "\n";
}
